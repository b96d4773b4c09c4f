using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Flight
{
    /// <summary>Settings of <see cref="Lz4FlightClientInterceptor"/>; read once, when the interceptor is made.</summary>
    public sealed class Lz4FlightClientOptions
    {
        /// <summary>Checksums, parallelism and compression level (<see cref="Lz4FastOptions"/>); <see langword="null"/> for the defaults.</summary>
        public Lz4FastOptions? Codec { get; set; }

        /// <summary>
        /// Decodes bodies compressed with codecs other than LZ4_FRAME (ZSTD), e.g.
        /// <c>new Apache.Arrow.Compression.CompressionCodecFactory()</c>. Without one a ZSTD message fails the read with a
        /// <see cref="System.NotSupportedException"/>. With one, the client also advertises ZSTD.
        /// </summary>
        public ICompressionCodecFactory? InnerCodecFactory { get; set; }

        /// <summary>
        /// Compress the record and dictionary batches of DoPut and DoExchange uploads with LZ4_FRAME. Off by default: only
        /// a server that reads compressed uploads (this package's server interceptor, Arrow C++, pyarrow, arrow-rs) may get them.
        /// </summary>
        public bool CompressUploads { get; set; }

        /// <summary>A buffer is sent raw (the -1 prefix) unless compressing saves at least this fraction of it, 0 to 1 (Arrow C++'s min_space_savings).</summary>
        public double MinSpaceSavings { get; set; }

        /// <summary>Send the <see cref="Lz4FlightHeaders.AcceptCodecs"/> request header on Flight data calls (on by default).</summary>
        public bool Advertise { get; set; } = true;

        /// <summary>
        /// The longest data_body one DoGet or DoExchange response message may decode to, in bytes: what the channel's
        /// <c>MaxReceiveMessageSize</c> is to the bytes on the wire, applied after decoding. A message whose buffers declare
        /// more fails the read with an <see cref="Grpc.Core.RpcException"/> (<see cref="Grpc.Core.StatusCode.ResourceExhausted"/>,
        /// as gRPC refuses a message over its limit) before anything is allocated for it. Made with
        /// <c>channel.WithArrowLz4(channelOptions, options)</c>, it is by default the channel's own
        /// <c>GrpcChannelOptions.MaxReceiveMessageSize</c> (<see cref="ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize"/>,
        /// 64 MiB, when that is <see langword="null"/>); an interceptor made without the channel's options cannot read them
        /// and takes 4 MiB (4,194,304), gRPC's own default. Setting it overrides either. <see langword="null"/>: no limit
        /// but .NET's largest array (about 2 GiB). Uncompressed messages are the channel's to bound.
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

        /// <summary>Whether the user set <see cref="MaxReceiveMessageSize"/>, so that the channel's limit does not replace it.</summary>
        internal bool MaxReceiveMessageSizeIsSet { get; private set; }
    }
}
