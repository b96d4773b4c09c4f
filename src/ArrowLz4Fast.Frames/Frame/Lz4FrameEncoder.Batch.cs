using System;

namespace ArrowLz4Fast.Frames
{
    public static partial class Lz4FrameEncoder
    {
        /// <summary>
        /// Encodes many sources, each as one frame into its own range of <paramref name="destination"/>, on the calling
        /// thread and, with <see cref="Lz4FrameEncoderOptions.Parallelism"/>, on helper threads: the items are spread
        /// over the threads, largest first, each encoded by one thread (the buffers of a columnar container, such as
        /// an Arrow IPC record batch). The mirror of <see cref="Lz4FrameDecoder.DecodeBatch"/>.
        /// </summary>
        /// <remarks>
        /// <para>
        /// An item's <see cref="Lz4FrameBatchItem.SourceOffset"/> and <see cref="Lz4FrameBatchItem.SourceLength"/> are
        /// its content in <paramref name="source"/>; its destination range is the room its frame may take
        /// (<see cref="GetMaxEncodedLength"/> always suffices). A <see cref="Lz4FrameBatchItem.Stored"/> item is copied.
        /// Every frame is exactly what <see cref="TryEncode"/> writes with the same options, whatever the schedule.
        /// </para>
        /// <para>
        /// Items run in parallel when the options allow more than one thread, there are two or more, their sources add
        /// up to the parallelism's <see cref="Lz4Parallelism.MinimumLength"/>, and no item holds three quarters of the
        /// bytes; otherwise in order on the calling thread, each frame's blocks in parallel as
        /// <see cref="TryEncode"/> allows, so the two levels never both fan out. The calling thread takes part and never
        /// waits for a helper that has not started. Nothing is allocated per item.
        /// </para>
        /// </remarks>
        /// <param name="source">The bytes the items' sources are in.</param>
        /// <param name="destination">The memory the items' frames go to; the destination ranges must not overlap.</param>
        /// <param name="items">What to encode and where.</param>
        /// <param name="bytesWritten">Receives each item's frame length (at the item's index); 0 for an item whose frame did not fit.</param>
        /// <param name="options">Frame settings and parallelism.</param>
        /// <returns><see langword="false"/> when some item's frame does not fit its destination range (its bytes there are then unspecified).</returns>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException"><paramref name="bytesWritten"/> is shorter than <paramref name="items"/>, or a stored item's two lengths differ.</exception>
        public static bool TryEncodeBatch(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Span<int> bytesWritten, Lz4FrameEncoderOptions options = default)
        {
            if (bytesWritten.Length < items.Length)
                throw new ArgumentException($"{items.Length} items need as many lengths, but {bytesWritten.Length} were given.", nameof(bytesWritten));
            (long total, _, long largest) = Lz4FrameBatchItem.Check(items, source.Length, destination.Length);

            Lz4Parallelism parallelism = options.Parallelism;
            bool fits = true;
            // One dominant item bounds a buffer-parallel batch: its own blocks spread over the threads instead.
            if (!parallelism.IsParallel || items.Length < 2 || total < parallelism.MinimumLength || largest * 4 >= total * 3)
            {
                for (int i = 0; i < items.Length; i++)
                {
                    bytesWritten[i] = EncodeBatchItem(source, destination, in items[i], options);
                    fits &= bytesWritten[i] >= 0;
                }
            }
            else
            {
                var sequential = new Lz4FrameEncoderOptions(options.BlockSize, options.Level, options.ContentChecksum, options.BlockChecksum, options.ContentSize, Lz4Parallelism.Sequential);
                Lz4FrameBatchJob.RunEncode(source, destination, items, sequential, bytesWritten, parallelism.MaxDegreeOfParallelism);
                for (int i = 0; i < items.Length; i++)
                    fits &= bytesWritten[i] >= 0;
            }
            if (!fits)
            {
                for (int i = 0; i < items.Length; i++)
                    bytesWritten[i] = Math.Max(bytesWritten[i], 0);
            }
            return fits;
        }

        /// <summary>Encodes (or copies) one item; returns its frame length, or -1 when it does not fit.</summary>
        internal static int EncodeBatchItem(ReadOnlySpan<byte> source, Span<byte> destination, in Lz4FrameBatchItem item, Lz4FrameEncoderOptions options)
        {
            ReadOnlySpan<byte> input = source.Slice(item.SourceOffset, item.SourceLength);
            Span<byte> output = destination.Slice(item.DestinationOffset, item.DestinationLength);
            if (item.Stored)
            {
                input.CopyTo(output);
                return input.Length;
            }
            return TryEncode(input, output, out int written, options) ? written : -1;
        }
    }
}
