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

        /// <summary>The longest decompressed body an upload may declare; a longer one fails the call before anything is allocated for it.</summary>
        public long MaxBodyLength { get; set; } = IpcDecompressingStream.DefaultMaxBodyLength;
    }
}
