using System;
using System.Buffers;

namespace ArrowLz4Fast.Frames
{
    public static partial class Lz4FrameDecoder
    {
        /// <summary>
        /// Decodes every frame of <paramref name="source"/>, whatever its decoded length, into memory rented from
        /// <see cref="ArrayPool{T}.Shared"/>: dispose the result to return it.
        /// </summary>
        /// <remarks>
        /// The memory is sized from the frame headers' content sizes when every frame carries one, and otherwise from
        /// the block maxima of the blocks the input holds (a frame's blocks bound its output), so the input is decoded
        /// once. Accepts and rejects exactly what <see cref="Decode(ReadOnlySpan{byte}, Span{byte}, out int, out int, Lz4FrameDecoderOptions)"/> does, with the same exceptions.
        /// </remarks>
        /// <param name="source">One or more LZ4 frames.</param>
        /// <param name="options">Checksum verification and parallelism; the default verifies.</param>
        /// <returns>The decoded content: its <see cref="IMemoryOwner{T}.Memory"/> has exactly the decoded length.</returns>
        /// <exception cref="System.IO.InvalidDataException">The input is malformed, truncated or fails a checksum (the inner <see cref="Lz4FrameException"/> has the offset).</exception>
        /// <exception cref="NotSupportedException">A frame names a dictionary, or the content is larger than an array can hold.</exception>
        public static IMemoryOwner<byte> DecodeToOwner(ReadOnlySpan<byte> source, Lz4FrameDecoderOptions options = default)
        {
            OutputBounds(source, out int sized, out int bound);
            byte[] array = ArrayPool<byte>.Shared.Rent(sized);
            try
            {
                Lz4FrameDecodeStatus status = Decode(source, array, out int consumed, out int written, options);
                if (status == Lz4FrameDecodeStatus.DestinationTooSmall && bound > array.Length)
                {
                    // A content size field smaller than the frame's blocks decode to: decoding again with the blocks'
                    // bound reports it as Decode does.
                    ArrayPool<byte>.Shared.Return(array);
                    array = Array.Empty<byte>();
                    byte[] larger = ArrayPool<byte>.Shared.Rent(bound);
                    array = larger;
                    status = Decode(source, array, out consumed, out written, options);
                }
                CheckDone(source, status, consumed);
                var owner = new Lz4PooledMemory(array, written);
                array = Array.Empty<byte>();
                return owner;
            }
            finally
            {
                if (array.Length != 0)
                    ArrayPool<byte>.Shared.Return(array);
            }
        }

        /// <summary>
        /// Decodes every frame of <paramref name="source"/>, whatever its decoded length, into
        /// <paramref name="destination"/>, asking it for memory sized as <see cref="DecodeToOwner"/> sizes it (a second
        /// time only for a content size field smaller than the blocks) and advancing it by the decoded length.
        /// </summary>
        /// <param name="source">One or more LZ4 frames.</param>
        /// <param name="destination">Where the decoded content goes, e.g. an <c>ArrayBufferWriter&lt;byte&gt;</c> or a <c>PipeWriter</c>.</param>
        /// <param name="options">Checksum verification and parallelism; the default verifies.</param>
        /// <returns>The decoded length, by which <paramref name="destination"/> was advanced.</returns>
        /// <exception cref="System.IO.InvalidDataException">The input is malformed, truncated or fails a checksum (the inner <see cref="Lz4FrameException"/> has the offset).</exception>
        /// <exception cref="NotSupportedException">A frame names a dictionary, or the content is larger than an array can hold.</exception>
        public static int DecodeToWriter(ReadOnlySpan<byte> source, IBufferWriter<byte> destination, Lz4FrameDecoderOptions options = default)
        {
            if (destination is null) throw new ArgumentNullException(nameof(destination));
            OutputBounds(source, out int sized, out int bound);
            Lz4FrameDecodeStatus status = Decode(source, destination.GetSpan(sized), out int consumed, out int written, options);
            if (status == Lz4FrameDecodeStatus.DestinationTooSmall && bound > sized)
                status = Decode(source, destination.GetSpan(bound), out consumed, out written, options);
            CheckDone(source, status, consumed);
            destination.Advance(written);
            return written;
        }

        private static void CheckDone(ReadOnlySpan<byte> source, Lz4FrameDecodeStatus status, int consumed)
        {
            if (status == Lz4FrameDecodeStatus.DictionaryRequired)
                throw DictionaryNotSupported(source, consumed);
            if (status != Lz4FrameDecodeStatus.Done)
                throw new NotSupportedException("The LZ4 frames decode to more bytes than one array can hold.");
        }

        /// <summary>
        /// Output sizes for <paramref name="source"/> from its structure: <paramref name="sized"/> from the content size
        /// fields when every frame has one (plus a block maximum, so the last block gets liblz4's full output space),
        /// else <paramref name="bound"/>; <paramref name="bound"/> gives every block its block maximum, and covers every
        /// block before a structural defect, so that <see cref="Decode(ReadOnlySpan{byte}, Span{byte}, out int, out int, Lz4FrameDecoderOptions)"/> gets there and reports it.
        /// </summary>
        private static void OutputBounds(ReadOnlySpan<byte> source, out int sized, out int bound)
        {
            long blocks = 0;
            long contentSizes = 0;
            int largestBlock = 0;
            bool allSized = true;
            var reader = new Lz4FrameReader(source, verifyChecksums: false);
            try
            {
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.Block)
                    {
                        blocks += reader.BlockIsUncompressed ? reader.BlockData.Length : reader.Frame.BlockMaximumSize;
                    }
                    else if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    {
                        Lz4FrameDescriptor frame = reader.Frame;
                        largestBlock = Math.Max(largestBlock, frame.BlockMaximumSize);
                        if (frame.ContentSize is ulong size && size != 0 && size <= int.MaxValue)
                            contentSizes += (long)size;
                        else
                            allSized = false;
                    }
                }
            }
            catch (System.IO.InvalidDataException)
            {
                // Decode reports this defect, or an earlier one; the bound so far gets it there.
                allSized = false;
            }
            const int MaxArrayLength = 0x7FFFFFC7;
            long sizedLong = allSized ? Math.Min(contentSizes + largestBlock, blocks) : blocks;
            bound = (int)Math.Min(blocks, MaxArrayLength);
            sized = (int)Math.Min(sizedLong, MaxArrayLength);
        }
    }
}
