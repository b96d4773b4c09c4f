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

        /// <summary>The longest decompressed body a message may declare; a longer one fails the read before anything is allocated for it.</summary>
        public long MaxBodyLength { get; set; } = IpcDecompressingStream.DefaultMaxBodyLength;
    }
}
