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
        /// <see cref="Grpc.Core.StatusCode.ResourceExhausted"/> before anything is allocated for it. 4 MiB (4,194,304) by
        /// default, gRPC's own default; an interceptor cannot read the server's <c>GrpcServiceOptions</c>, so give it the
        /// same value as the server's limit. <see langword="null"/>: no limit but .NET's largest array (about 2 GiB).
        /// </summary>
        public int? MaxReceiveMessageSize { get; set; } = 4 * 1024 * 1024;

        /// <summary>
        /// The most data_body bytes, after decoding, one DoPut or DoExchange may receive in all, compressed messages and
        /// others alike; the message that would pass it fails the call with <see cref="Grpc.Core.StatusCode.ResourceExhausted"/>
        /// before it is decoded. <see langword="null"/> (the default): no bound per call.
        /// </summary>
        public long? MaxReceiveCallSize { get; set; }
    }
}
