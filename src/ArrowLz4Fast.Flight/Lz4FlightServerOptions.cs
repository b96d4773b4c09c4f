using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Flight
{
    /// <summary>Settings of <see cref="Lz4FlightServerInterceptor"/>; read once, when the interceptor is made.</summary>
    public sealed class Lz4FlightServerOptions
    {
        /// <summary>Checksums, parallelism and compression level (<see cref="Lz4FastOptions"/>); <see langword="null"/> for the defaults.</summary>
        public Lz4FastOptions? Codec { get; set; }

        /// <summary>Decodes uploads compressed with codecs other than LZ4_FRAME (ZSTD); without one such an upload fails its call.</summary>
        public ICompressionCodecFactory? InnerCodecFactory { get; set; }

        /// <summary>
        /// Compress DoGet and DoExchange responses for clients that send <see cref="Lz4FlightHeaders.AcceptCodecs"/> listing
        /// <c>lz4</c> (on by default). Other clients get what the handler wrote.
        /// </summary>
        public bool CompressResponses { get; set; } = true;

        /// <summary>
        /// Compress responses for every client, advertised or not: for pyarrow, Arrow C++ and arrow-rs clients, which read
        /// LZ4 natively but send no header. A stock .NET Flight client cannot read them.
        /// </summary>
        public bool AlwaysCompressResponses { get; set; }

        /// <summary>A buffer is sent raw (the -1 prefix) unless compressing saves at least this fraction of it, 0 to 1 (Arrow C++'s min_space_savings).</summary>
        public double MinSpaceSavings { get; set; }

        /// <summary>
        /// The longest data_body one upload message may decode to, in bytes: what gRPC's <c>MaxReceiveMessageSize</c> is to
        /// the bytes on the wire, applied after decoding. A message whose buffers declare more fails its call with
        /// <see cref="Grpc.Core.StatusCode.ResourceExhausted"/> before anything is allocated for it. Registered with
        /// ArrowLz4Fast.Flight.AspNetCore's <c>AddArrowLz4()</c>, it is by default the server's own
        /// <c>GrpcServiceOptions.MaxReceiveMessageSize</c> (64 MiB when that is <see langword="null"/>); an interceptor made
        /// directly cannot read the server's options and takes 4 MiB (4,194,304), gRPC's own default. Setting it overrides
        /// either. <see langword="null"/>: no limit but .NET's largest array (about 2 GiB).
        /// </summary>
        public int? MaxReceiveMessageSize
        {
            get => _maxReceiveMessageSize;
            set
            {
                _maxReceiveMessageSize = value;
                MaxReceiveMessageSizeIsSet = true;
            }
        }

        private int? _maxReceiveMessageSize = 4 * 1024 * 1024;

        /// <summary>Whether the user set <see cref="MaxReceiveMessageSize"/>, so that a default from the server's options does not replace it.</summary>
        internal bool MaxReceiveMessageSizeIsSet { get; private set; }

        /// <summary>Where the message limit came from, named in refusals; <see langword="null"/> for this type's own option.</summary>
        internal string? MaxReceiveMessageSizeSource { get; set; }

        /// <summary>
        /// The most data_body bytes, after decoding, one DoPut or DoExchange may receive in all, compressed messages and
        /// others alike; the message that would pass it fails the call with <see cref="Grpc.Core.StatusCode.ResourceExhausted"/>
        /// before it is decoded. <see langword="null"/> (the default): no bound per call.
        /// </summary>
        public long? MaxReceiveCallSize { get; set; }
    }
}
