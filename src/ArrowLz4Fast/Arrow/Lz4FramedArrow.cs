using System;
using System.IO;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Arrow IPC streams wrapped whole in LZ4 frames ("outer" compression), as Databricks CloudFetch result files,
    /// HTTP <c>Content-Encoding: lz4</c> bodies and <c>.arrows.lz4</c> files are.
    /// </summary>
    /// <example>
    /// <code>
    /// using var reader = Lz4FramedArrow.CreateStreamReader(httpResponseStream);
    /// while (reader.ReadNextRecordBatch() is RecordBatch batch)
    ///     using (batch) Process(batch);
    /// </code>
    /// </example>
    public static class Lz4FramedArrow
    {
        /// <summary>
        /// An <see cref="ArrowStreamReader"/> over the IPC stream that the LZ4 frames of <paramref name="lz4FramedIpc"/>
        /// decode to, decoded as it is read (<see cref="Lz4FrameStream"/>): no copy of the whole decoded stream is made,
        /// every batch owns its memory (from <paramref name="allocator"/>), and the end-of-stream marker is read as
        /// Arrow reads it from any stream. At that marker the rest of the frames is read, so their end marks and content
        /// checksums are checked before the reader reports the end. Record batches compressed with LZ4_FRAME inside the
        /// frame are decoded by <see cref="IpcDecompressingStream"/>; <paramref name="compressionCodecFactory"/> gets the
        /// others (ZSTD).
        /// </summary>
        /// <param name="lz4FramedIpc">One or more LZ4 frames holding an Arrow IPC stream (not the file format).</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="leaveOpen">Leave <paramref name="lz4FramedIpc"/> open when the reader is disposed.</param>
        /// <param name="decoderOptions">Checksum verification and parallelism of the outer frames; the default verifies, on the calling thread.</param>
        /// <param name="compressionCodecFactory">Decodes compressed batch bodies; <see langword="null"/> for a <see cref="Lz4FastCodecFactory"/> with default options.</param>
        /// <returns>The reader; dispose it (and each batch) when done.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="lz4FramedIpc"/> is null.</exception>
        /// <remarks>The reader's reads throw <see cref="InvalidDataException"/> when the LZ4 data is malformed, truncated or fails a checksum (the inner <see cref="Lz4FrameException"/> has the offset). The message says which stream the offset is in: the compressed bytes of <paramref name="lz4FramedIpc"/> for a defect of the outer frame, the IPC stream decompressed from it for a defect of the IPC data or of an LZ4 buffer inside it.</remarks>
        public static ArrowStreamReader CreateStreamReader(
            Stream lz4FramedIpc,
            MemoryAllocator? allocator = null,
            bool leaveOpen = false,
            Lz4FrameDecoderOptions decoderOptions = default,
            ICompressionCodecFactory? compressionCodecFactory = null)
            => CreateStreamReader(lz4FramedIpc, projection: null, allocator, leaveOpen, decoderOptions, compressionCodecFactory);

        /// <summary>
        /// As <see cref="CreateStreamReader(Stream, MemoryAllocator?, bool, Lz4FrameDecoderOptions, ICompressionCodecFactory?)"/>,
        /// presenting only the top-level fields <paramref name="projection"/> selects (<see cref="Lz4FastOptions.Projection"/>):
        /// the other fields' LZ4 buffers inside the frames are not decompressed (the frames themselves are, as they are
        /// read in order).
        /// </summary>
        /// <param name="lz4FramedIpc">One or more LZ4 frames holding an Arrow IPC stream (not the file format).</param>
        /// <param name="projection">The fields to present; <see langword="null"/> for all of them.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="leaveOpen">Leave <paramref name="lz4FramedIpc"/> open when the reader is disposed.</param>
        /// <param name="decoderOptions">Checksum verification and parallelism of the outer frames.</param>
        /// <param name="compressionCodecFactory">Decodes compressed batch bodies; <see langword="null"/> for a <see cref="Lz4FastCodecFactory"/> with default options.</param>
        /// <returns>The reader; dispose it (and each batch) when done.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="lz4FramedIpc"/> is null.</exception>
        public static ArrowStreamReader CreateProjectedStreamReader(
            Stream lz4FramedIpc,
            IpcProjection? projection,
            MemoryAllocator? allocator = null,
            bool leaveOpen = false,
            Lz4FrameDecoderOptions decoderOptions = default,
            ICompressionCodecFactory? compressionCodecFactory = null)
            => CreateStreamReader(lz4FramedIpc, projection, allocator, leaveOpen, decoderOptions, compressionCodecFactory);

        private static ArrowStreamReader CreateStreamReader(
            Stream lz4FramedIpc,
            IpcProjection? projection,
            MemoryAllocator? allocator,
            bool leaveOpen,
            Lz4FrameDecoderOptions decoderOptions,
            ICompressionCodecFactory? compressionCodecFactory)
        {
            if (lz4FramedIpc is null) throw new ArgumentNullException(nameof(lz4FramedIpc));
            // The compressed bytes are counted as the frames are read, for the meter's framed path.
            var input = new CountingReadStream(lz4FramedIpc, leaveOpen);
            var decoded = new Lz4FrameStream(input, decoderOptions, leaveOpen: false);
            // Arrow stops at the IPC end-of-stream marker; the wrapper reads on to the frame's end mark there, so its
            // content checksum is checked. LZ4 body compression inside is decoded by the wrapper, on every core.
            var ipc = new IpcDecompressingStream(decoded, new Lz4FastOptions { VerifyChecksums = decoderOptions.VerifyChecksums, Projection = projection }, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: true);
            return new ArrowStreamReader(new FramedIpcStream(ipc, input), allocator ?? SlabMemoryAllocator.Shared, compressionCodecFactory ?? new Lz4FastCodecFactory(), leaveOpen: false);
        }
    }
}
