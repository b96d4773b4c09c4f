using System;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Settings for <see cref="Lz4FastCodecFactory"/> and <see cref="Lz4FastCodec"/>. A factory or codec copies them
    /// when it is created, so changing an instance afterwards does not affect codecs already made.
    /// </summary>
    public sealed partial class Lz4FastOptions
    {
        private int _blockSize = default(Lz4FrameEncoderOptions).BlockSize;
        private int _compressionLevel;

        /// <summary>
        /// Verify the block and content checksums of frames that carry them (default <see langword="true"/>). Turn off
        /// only for data whose integrity is already guaranteed; sizes and structure are validated either way.
        /// </summary>
        public bool VerifyChecksums { get; set; } = true;

        /// <summary>
        /// Block maximum of the frames the writer produces: 65536, 262144 (default), 1048576 or 4194304 bytes. A buffer
        /// of one block that is at least 262144 bytes long is written as two half blocks, so that two cores can
        /// compress it; what is written never depends on the number of cores.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Any other value.</exception>
        public int BlockSize
        {
            get => _blockSize;
            set => _blockSize = new Lz4FrameEncoderOptions(value).BlockSize;
        }

        /// <summary>
        /// Compression level used when the writer's <c>IpcOptions.CompressionLevel</c> is not set: 0 to 12 as in
        /// liblz4 (0-2 fast, 3-9 HC, 10-12 optimal). Default 0.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">A level outside 0 to 12.</exception>
        public int CompressionLevel
        {
            get => _compressionLevel;
            set
            {
                _ = new Lz4FrameEncoderOptions(level: value);
                _compressionLevel = value;
            }
        }

        /// <summary>
        /// Decode every buffer with K4os.Compression.LZ4.Streams' frame decoder (<c>LZ4Frame.Decode</c>), exactly as
        /// the official codec, Apache.Arrow.Compression, does (default <see langword="false"/>: the package's own
        /// decoder, straight into Arrow's buffer). For bug-for-bug compatibility with the official codec, or as an
        /// escape hatch in production. The contract stays this package's: the whole input must be one frame that
        /// decodes to exactly Arrow's declared length, anything else is an <see cref="System.IO.InvalidDataException"/>
        /// (K4os's own failures wrapped as its inner exception), and a frame that names a dictionary is a
        /// <see cref="NotSupportedException"/>. <see cref="VerifyChecksums"/> does not apply: K4os verifies what it
        /// verifies. Slower, and it allocates per buffer.
        /// </summary>
        public bool UseK4osDecoder { get; set; }

        /// <summary>
        /// The verifying read of <see cref="IpcDecompressingStream"/> (default <see langword="false"/>): after it decodes
        /// a batch, it checks the offsets of every variable-length column (binary, utf8, their large variants, list,
        /// large list, map) as Arrow C++'s <c>ValidateFull</c> does: length + 1 of them, the first 0 or more, none less
        /// than the one before, the last within the data buffer or the child's length. A defect is an
        /// <see cref="System.IO.InvalidDataException"/> naming the batch, the field (name and path) and the buffer; without
        /// the check Arrow .NET reads such offsets as they are, and a corrupt one surfaces in the reading code (an
        /// <see cref="ArgumentOutOfRangeException"/> from <c>GetString</c>, or wrong values). It is the only check that
        /// covers buffers stored raw (behind the -1 prefix), which no checksum covers. It reads each offsets buffer
        /// once; batches passing through uncompressed are not checked, nor are UTF-8 and the values themselves. The codec
        /// (<see cref="Lz4FastCodec"/>) sees one buffer at a time and cannot check offsets; the Flight interceptors do not.
        /// </summary>
        public bool VerifyOffsets { get; set; }

        /// <summary>
        /// The top-level fields <see cref="IpcDecompressingStream"/> presents (default <see langword="null"/>: all of
        /// them); the others are neither decompressed nor, from a seekable input, read. See <see cref="IpcProjection"/>
        /// and docs/projection.md. The codec (<see cref="Lz4FastCodec"/>) sees one buffer at a time and ignores it.
        /// </summary>
        public IpcProjection? Projection { get; set; }

        /// <summary>Written frames carry a content checksum (default <see langword="false"/>, as pyarrow and Arrow .NET write).</summary>
        public bool ContentChecksum { get; set; }

        /// <summary>Written frames carry block checksums (default <see langword="false"/>).</summary>
        public bool BlockChecksum { get; set; }

        /// <summary>
        /// Written frames carry the content size field in their header (default <see langword="false"/>, as pyarrow
        /// and Arrow .NET write): 8 more bytes per buffer, which decoders check against the decoded length.
        /// </summary>
        public bool ContentSize { get; set; }

        internal Lz4FrameDecoderOptions DecoderOptions => new(VerifyChecksums, Parallelism);

        internal Lz4FrameEncoderOptions EncoderOptions(int? level) =>
            new(BlockSize, level ?? CompressionLevel, ContentChecksum, BlockChecksum, ContentSize, Parallelism);

        internal Lz4FastOptions Clone() => (Lz4FastOptions)MemberwiseClone();
    }
}
