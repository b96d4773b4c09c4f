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
            if (!SpreadsOverThreads(items.Length, total, largest, options.Parallelism))
                return EncodeInOrder(source, destination, items, bytesWritten, options);

            var sequential = SequentialItems(options);
            unsafe
            {
                fixed (byte* s = source)
                fixed (byte* d = destination)
                fixed (Lz4FrameBatchItem* i = items)
                fixed (int* w = bytesWritten)
                {
                    return Lz4FrameEncodeBatchJob.Start(s, source.Length, d, destination.Length, i, w, items.Length, sequential, options.Parallelism.MaxDegreeOfParallelism).Complete();
                }
            }
        }

        /// <summary>
        /// Starts encoding many sources, each as one frame into its own range of <paramref name="destination"/>, on
        /// helper threads, and returns at once, so that the calling thread can prepare the next batch meanwhile;
        /// <see cref="Lz4FrameBatchEncoding.Complete"/> then takes part in what is left and waits for the rest. The
        /// frames, and what the call checks, are those of <see cref="TryEncodeBatch"/>.
        /// </summary>
        /// <remarks>
        /// A batch that <see cref="TryEncodeBatch"/> would not spread over threads (one thread allowed, fewer than two
        /// items, less than <see cref="Lz4Parallelism.MinimumLength"/> in all, one item with three quarters of the bytes)
        /// is encoded before this returns, as <see cref="TryEncodeBatch"/> encodes it. Otherwise up to
        /// <see cref="Lz4Parallelism.MaxDegreeOfParallelism"/> - 1 helpers start on the items, largest first, and the
        /// completing thread makes the degree. Until <see cref="Lz4FrameBatchEncoding.Complete"/> returns, the memory
        /// given must be left alone; an encode never completed keeps its memory referenced.
        /// </remarks>
        /// <param name="source">The bytes the items' sources are in.</param>
        /// <param name="destination">The memory the items' frames go to; the destination ranges must not overlap.</param>
        /// <param name="items">What to encode and where.</param>
        /// <param name="bytesWritten">Receives each item's frame length (at the item's index) by the time the encode is complete.</param>
        /// <param name="options">Frame settings and parallelism.</param>
        /// <returns>The encode, to complete once.</returns>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException"><paramref name="bytesWritten"/> is shorter than <paramref name="items"/>, or a stored item's two lengths differ.</exception>
        public static Lz4FrameBatchEncoding StartEncodeBatch(ReadOnlyMemory<byte> source, Memory<byte> destination, ReadOnlyMemory<Lz4FrameBatchItem> items, Memory<int> bytesWritten, Lz4FrameEncoderOptions options = default) =>
            StartEncodeBatchAfter(source, destination, items, bytesWritten, options, after: default);

        /// <summary>
        /// As <see cref="StartEncodeBatch(ReadOnlyMemory{byte}, Memory{byte}, ReadOnlyMemory{Lz4FrameBatchItem}, Memory{int}, Lz4FrameEncoderOptions)"/>,
        /// following <paramref name="after"/>, a batch started before and completed before this one: when it runs on
        /// helpers, they move on to this batch as they run out of its items, and its completing thread encodes items of
        /// this batch while it waits for them, so no thread idles between the two batches.
        /// </summary>
        internal static Lz4FrameBatchEncoding StartEncodeBatchAfter(ReadOnlyMemory<byte> source, Memory<byte> destination, ReadOnlyMemory<Lz4FrameBatchItem> items, Memory<int> bytesWritten, Lz4FrameEncoderOptions options, Lz4FrameBatchEncoding after)
        {
            if (bytesWritten.Length < items.Length)
                throw new ArgumentException($"{items.Length} items need as many lengths, but {bytesWritten.Length} were given.", nameof(bytesWritten));
            (long total, _, long largest) = Lz4FrameBatchItem.Check(items.Span, source.Length, destination.Length);
            if (!SpreadsOverThreads(items.Length, total, largest, options.Parallelism))
                return new Lz4FrameBatchEncoding(EncodeInOrder(source.Span, destination.Span, items.Span, bytesWritten.Span, options));
            return new Lz4FrameBatchEncoding(Lz4FrameEncodeBatchJob.Start(source, destination, items, bytesWritten, SequentialItems(options), options.Parallelism.MaxDegreeOfParallelism, after.RunningJob));
        }

        /// <summary>
        /// Whether a batch spreads its items over threads: one dominant item bounds a buffer-parallel batch, so its own
        /// blocks spread instead, and a batch the claim word cannot count runs in order.
        /// </summary>
        private static bool SpreadsOverThreads(int count, long total, long largest, Lz4Parallelism parallelism) =>
            parallelism.IsParallel && count >= 2 && count < Lz4ParallelJob.MaximumBlocks && total >= parallelism.MinimumLength && largest * 4 < total * 3;

        /// <summary>The options each item is encoded with on the thread that claimed it.</summary>
        private static Lz4FrameEncoderOptions SequentialItems(Lz4FrameEncoderOptions options) =>
            new(options.BlockSize, options.Level, options.ContentChecksum, options.BlockChecksum, options.ContentSize, Lz4Parallelism.Sequential);

        /// <summary>Encodes the items one after the other on the calling thread, each frame's blocks in parallel as <see cref="TryEncode"/> allows.</summary>
        private static bool EncodeInOrder(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Span<int> bytesWritten, Lz4FrameEncoderOptions options)
        {
            bool fits = true;
            for (int i = 0; i < items.Length; i++)
            {
                int written = EncodeBatchItem(source, destination, in items[i], options);
                fits &= written >= 0;
                bytesWritten[i] = Math.Max(written, 0);
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
