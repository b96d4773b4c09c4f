using System;
using System.IO;

namespace ArrowLz4Fast.Frames
{
    public static partial class Lz4FrameDecoder
    {
        /// <summary>
        /// Decodes many independent frames, each into its own place in <paramref name="destination"/>, on the calling
        /// thread and, with <see cref="Lz4FrameDecoderOptions.Parallelism"/>, on helper threads: the frames are spread
        /// over the threads, largest first, each decoded by one thread (the frames of a columnar container, such as the
        /// buffers of an Arrow IPC record batch).
        /// </summary>
        /// <remarks>
        /// <para>
        /// Each item must decode to exactly its <see cref="Lz4FrameBatchItem.DestinationLength"/>. Items run in parallel
        /// when the options allow more than one thread, there are two or more, and their destinations add up to the
        /// parallelism's <see cref="Lz4Parallelism.MinimumLength"/>; otherwise in order on the calling thread. The
        /// calling thread takes part and never waits for a helper that has not started. Nothing is allocated per item.
        /// </para>
        /// <para>
        /// The destinations must not overlap (the bytes where they do are then unspecified; nothing is written outside
        /// an item's own range). When items fail, the exception of the first failing item in <paramref name="items"/>
        /// order is thrown (offsets in <paramref name="source"/>): in a parallel run after every other item has been
        /// decoded or has failed, in a sequential run at once, with the items after it left as they were.
        /// </para>
        /// </remarks>
        /// <param name="source">The bytes the items' source ranges are in.</param>
        /// <param name="destination">The memory the items' destination ranges are in.</param>
        /// <param name="items">The frames to decode and where.</param>
        /// <param name="options">Checksum verification and parallelism; the default verifies, on the calling thread only.</param>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException">A stored item's two lengths differ.</exception>
        /// <exception cref="InvalidDataException">
        /// An item's bytes are malformed, truncated, fail a checksum, or decode to another length than the item's; the
        /// message names the item, and the inner <see cref="Lz4FrameException"/>'s offset is in <paramref name="source"/>.
        /// </exception>
        /// <exception cref="NotSupportedException">An item's frame names a dictionary.</exception>
        public static void DecodeBatch(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions options = default) =>
            Decode(source, destination, items, options, alongside: null);

        /// <summary>
        /// Decodes as <see cref="DecodeBatch"/> does, and runs <paramref name="alongside"/> once on the calling thread
        /// while the helpers decode: after they have been asked to start and before the calling thread takes part (when
        /// the batch runs sequentially, before its first item). A batch of one item runs in parallel here too: a helper
        /// decodes it while the calling thread runs <paramref name="alongside"/>. For work that needs no core of its own, such as reading
        /// the next input while this batch decodes, without a thread more than the parallelism allows.
        /// </summary>
        /// <remarks>
        /// <paramref name="alongside"/> must not touch <paramref name="source"/> or <paramref name="destination"/>. If it
        /// throws, no further item is started, the helpers are waited for, and its exception is thrown (the items'
        /// destinations are then unspecified).
        /// </remarks>
        /// <param name="source">The bytes the items' source ranges are in.</param>
        /// <param name="destination">The memory the items' destination ranges are in.</param>
        /// <param name="items">The frames to decode and where.</param>
        /// <param name="options">Checksum verification and parallelism.</param>
        /// <param name="alongside">The work to run on the calling thread while the helpers decode.</param>
        /// <exception cref="ArgumentNullException"><paramref name="alongside"/> is null.</exception>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException">A stored item's two lengths differ.</exception>
        /// <exception cref="InvalidDataException">An item's bytes are malformed (as for <see cref="DecodeBatch"/>).</exception>
        /// <exception cref="NotSupportedException">An item's frame names a dictionary.</exception>
        internal static void DecodeBatchAlongside(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions options, Action alongside)
        {
            if (alongside is null)
                throw new ArgumentNullException(nameof(alongside));
            Decode(source, destination, items, options, alongside);
        }

        /// <summary>
        /// Decodes as <see cref="DecodeBatch"/> does a source that arrives while the batch decodes, front to back: the
        /// calling thread runs <paramref name="fill"/> until the whole source is there (reading it from a file or a
        /// stream, say) while the helpers decode each item as soon as its range has arrived; then it runs
        /// <paramref name="alongside"/>, if any, and takes part. The copy of the source then overlaps its decode.
        /// </summary>
        /// <remarks>
        /// <para>
        /// <paramref name="fill"/> is given how many of the source's first bytes are there and must bring more: it
        /// writes them into the memory behind <paramref name="source"/> and returns the new count, more than it was given
        /// and at most the source's length. Items are claimed largest first, as <see cref="DecodeBatch"/> claims them,
        /// and a thread that claimed one waits until its range has arrived. The bytes before the count must not change
        /// afterwards; the bytes after it are not read until they are counted. When the batch runs sequentially, the
        /// source is filled first.
        /// </para>
        /// <para>
        /// If <paramref name="fill"/> or <paramref name="alongside"/> throws, no further item is started, the helpers
        /// are waited for, and its exception is thrown (the items' destinations are then unspecified).
        /// </para>
        /// </remarks>
        /// <param name="source">The memory the source arrives in.</param>
        /// <param name="destination">The memory the items' destination ranges are in.</param>
        /// <param name="items">The frames to decode and where.</param>
        /// <param name="options">Checksum verification and parallelism.</param>
        /// <param name="fill">Brings more of the source; runs on the calling thread until all of it is there.</param>
        /// <param name="alongside">Work for the calling thread once the source is there, before it takes part; or null.</param>
        /// <exception cref="ArgumentNullException"><paramref name="fill"/> is null.</exception>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException">A stored item's two lengths differ.</exception>
        /// <exception cref="InvalidOperationException"><paramref name="fill"/> returned no more than it was given, or more than the source's length.</exception>
        /// <exception cref="InvalidDataException">An item's bytes are malformed (as for <see cref="DecodeBatch"/>).</exception>
        /// <exception cref="NotSupportedException">An item's frame names a dictionary.</exception>
        internal static void DecodeBatchArriving(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions options, Lz4BatchSourceFill fill, Action? alongside = null)
        {
            if (fill is null)
                throw new ArgumentNullException(nameof(fill));
            long total = Lz4FrameBatchItem.Check(items, source.Length, destination.Length).Destinations;
            var sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            Lz4Parallelism parallelism = options.Parallelism;
            if (!parallelism.IsParallel || items.Length == 0 || total < parallelism.MinimumLength)
            {
                for (int arrived = 0; arrived < source.Length;)
                    arrived = Lz4FrameBatchJob.NextArrived(fill, arrived, source.Length);
                alongside?.Invoke();
                for (int i = 0; i < items.Length; i++)
                    DecodeBatchItem(source, destination, in items[i], i, sequential);
                return;
            }
            Lz4FrameBatchJob.RunArriving(source, destination, items, sequential, parallelism.MaxDegreeOfParallelism, fill, alongside);
        }

        /// <summary>
        /// Decodes as <see cref="DecodeBatch"/> does a source that is not there yet: each thread, the calling one and
        /// the helpers, runs <paramref name="read"/> for the source range of an item it claims, then decodes that item
        /// (reading a file at positions on every thread, say, instead of copying it whole first).
        /// </summary>
        /// <remarks>
        /// <paramref name="read"/> must write the bytes of the range it is given into the memory behind
        /// <paramref name="source"/>; it runs on several threads at once, for ranges that do not overlap. An
        /// <see cref="InvalidDataException"/> or <see cref="NotSupportedException"/> it throws is the item's failure,
        /// reported as a decoding failure is; any other exception is thrown once the helpers are done. When the batch
        /// runs sequentially, each item is read, then decoded, in order.
        /// </remarks>
        /// <param name="source">The memory the items' source ranges are read into.</param>
        /// <param name="destination">The memory the items' destination ranges are in.</param>
        /// <param name="items">The frames to decode and where.</param>
        /// <param name="options">Checksum verification and parallelism.</param>
        /// <param name="read">Brings one item's source range.</param>
        /// <exception cref="ArgumentNullException"><paramref name="read"/> is null.</exception>
        /// <exception cref="ArgumentOutOfRangeException">An item's range is negative or outside the source or the destination.</exception>
        /// <exception cref="ArgumentException">A stored item's two lengths differ.</exception>
        /// <exception cref="InvalidDataException">An item's bytes are malformed (as for <see cref="DecodeBatch"/>), or its read failed so.</exception>
        /// <exception cref="NotSupportedException">An item's frame names a dictionary.</exception>
        internal static void DecodeBatchReading(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions options, Lz4BatchSourceRead read)
        {
            if (read is null)
                throw new ArgumentNullException(nameof(read));
            long total = Lz4FrameBatchItem.Check(items, source.Length, destination.Length).Destinations;
            var sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            Lz4Parallelism parallelism = options.Parallelism;
            if (!parallelism.IsParallel || items.Length < 2 || total < parallelism.MinimumLength)
            {
                for (int i = 0; i < items.Length; i++)
                {
                    read(items[i].SourceOffset, items[i].SourceLength);
                    DecodeBatchItem(source, destination, in items[i], i, sequential);
                }
                return;
            }
            Lz4FrameBatchJob.RunReading(source, destination, items, sequential, parallelism.MaxDegreeOfParallelism, read);
        }

        private static void Decode(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions options, Action? alongside)
        {
            long total = Lz4FrameBatchItem.Check(items, source.Length, destination.Length).Destinations;

            var sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            Lz4Parallelism parallelism = options.Parallelism;
            // With work alongside, one item is worth a helper too: it decodes while the calling thread does that work.
            if (!parallelism.IsParallel || items.Length < (alongside is null ? 2 : 1) || total < parallelism.MinimumLength)
            {
                alongside?.Invoke();
                for (int i = 0; i < items.Length; i++)
                    DecodeBatchItem(source, destination, in items[i], i, sequential);
                return;
            }
            Lz4FrameBatchJob.Run(source, destination, items, sequential, parallelism.MaxDegreeOfParallelism, alongside);
        }

        /// <summary>Decodes (or copies) one item, with its errors worded for the batch and located in the batch's source.</summary>
        internal static void DecodeBatchItem(ReadOnlySpan<byte> source, Span<byte> destination, in Lz4FrameBatchItem item, int index, Lz4FrameDecoderOptions sequential)
        {
            ReadOnlySpan<byte> input = source.Slice(item.SourceOffset, item.SourceLength);
            Span<byte> output = destination.Slice(item.DestinationOffset, item.DestinationLength);
            if (item.Stored)
            {
                input.CopyTo(output);
                return;
            }

            Lz4FrameDecodeStatus status;
            int consumed, written;
            try
            {
                status = Decode(input, output, out consumed, out written, sequential);
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
            {
                long at = Math.Max(frame.Offset, 0);
                throw Lz4FrameErrors.Create(
                    $"Invalid LZ4 data in batch item {index} (its frame starts at byte offset {item.SourceOffset}): {e.Message}", frame.Kind, frame.Detail, item.SourceOffset + at, index, e);
            }
            switch (status)
            {
                case Lz4FrameDecodeStatus.Done:
                    if (written != output.Length)
                        throw Lz4FrameErrors.BatchLength(item.SourceOffset + consumed, index, Lz4FrameErrors.EndsEarly(written, output.Length));
                    return;
                case Lz4FrameDecodeStatus.DestinationTooSmall:
                    throw Lz4FrameErrors.BatchLength(item.SourceOffset + consumed, index, Lz4FrameErrors.DecodesLonger(output.Length));
                default:
                    throw Lz4FrameErrors.DictionaryNotSupported(item.SourceOffset + consumed, Lz4FrameDescriptor.Read(input, consumed).DictionaryId, index);
            }
        }
    }
}
