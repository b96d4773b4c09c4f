using System;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// An <see cref="ICompressionCodecFactory"/> that serves LZ4_FRAME with <see cref="Lz4FastCodec"/> and hands every
    /// other codec (ZSTD) to an inner factory, e.g. Apache.Arrow.Compression's <c>CompressionCodecFactory</c>.
    /// </summary>
    /// <example>
    /// <code>
    /// using var reader = new ArrowStreamReader(stream, new Lz4FastCodecFactory());
    /// </code>
    /// </example>
    public sealed class Lz4FastCodecFactory : ICompressionCodecFactory
    {
        private readonly Lz4FastOptions _options;
        private readonly ICompressionCodecFactory? _inner;

        /// <summary>A factory with default options that serves LZ4_FRAME only.</summary>
        public Lz4FastCodecFactory()
            : this(null, null)
        {
        }

        /// <summary>A factory with default options that passes codecs other than LZ4_FRAME to <paramref name="inner"/>.</summary>
        /// <param name="inner">Serves every codec other than LZ4_FRAME, e.g. <c>new Apache.Arrow.Compression.CompressionCodecFactory()</c>.</param>
        public Lz4FastCodecFactory(ICompressionCodecFactory? inner)
            : this(null, inner)
        {
        }

        /// <summary>A factory with the given options.</summary>
        /// <param name="options">Settings, copied now; <see langword="null"/> for the defaults.</param>
        /// <param name="inner">Serves every codec other than LZ4_FRAME; <see langword="null"/> for none.</param>
        public Lz4FastCodecFactory(Lz4FastOptions? options, ICompressionCodecFactory? inner = null)
        {
            _options = options?.Clone() ?? new Lz4FastOptions();
            _inner = inner;
        }

        /// <summary>Creates a codec for <paramref name="compressionCodecType"/>.</summary>
        /// <param name="compressionCodecType">The body compression codec of the stream.</param>
        /// <returns>The codec.</returns>
        /// <exception cref="NotSupportedException">Not LZ4_FRAME and no inner factory was supplied.</exception>
        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) =>
            CreateCodec(compressionCodecType, null);

        /// <summary>Creates a codec for <paramref name="compressionCodecType"/> compressing at <paramref name="compressionLevel"/>.</summary>
        /// <param name="compressionCodecType">The body compression codec of the stream.</param>
        /// <param name="compressionLevel">For LZ4_FRAME 0 to 12; <see langword="null"/> for <see cref="Lz4FastOptions.CompressionLevel"/>.</param>
        /// <returns>The codec.</returns>
        /// <exception cref="NotSupportedException">Not LZ4_FRAME and no inner factory was supplied.</exception>
        /// <exception cref="ArgumentOutOfRangeException">An LZ4 level outside 0 to 12.</exception>
        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel)
        {
            if (compressionCodecType == CompressionCodecType.Lz4Frame)
                return new Lz4FastCodec(_options, compressionLevel, readsArrowPrefix: true);
            if (_inner is not null)
                return _inner.CreateCodec(compressionCodecType, compressionLevel);
            throw new NotSupportedException(
                $"ArrowLz4Fast serves LZ4_FRAME only, and this data uses {compressionCodecType}. Pass a factory for it as the inner factory, "
                + "e.g. new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory()).");
        }
    }
}
