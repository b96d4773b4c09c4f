using System;
using System.Diagnostics;
using System.IO;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatch"/> on several threads: the items are claimed largest first (the largest
    /// bounds the batch, so it starts first), each decoded sequentially by the thread that claimed it. Jobs are pooled
    /// and keep their claim-order arrays, so a steady reader allocates nothing per batch. Encoding has its own job,
    /// <see cref="Lz4FrameEncodeBatchJob"/>.
    /// </summary>
    internal sealed unsafe class Lz4FrameBatchJob : Lz4ParallelJob
    {
        private readonly object _gate = new();
        private byte* _source;
        private int _sourceLength;
        private byte* _destination;
        private int _destinationLength;
        private Lz4FrameBatchItem* _items;
        private int _itemCount;
        private int[] _order = new int[16];
        private long[] _keys = new long[16];
        private Lz4FrameDecoderOptions _options;
        private int _errorIndex;
        private ExceptionDispatchInfo? _error;

        // A source that arrives while the batch decodes (DecodeBatchArriving): the calling thread fills it, publishing
        // how much is there in _arrived; a helper decodes an item once its range is there, or skips it once the fill failed.
        private readonly Action _fillThenAlongside;
        private bool _arriving;
        private Lz4BatchSourceFill? _fill;
        private Action? _alongside;
        private int _arrived;
        private volatile bool _abandoned;

        // A source each thread reads itself (DecodeBatchReading): the range of an item, before that item is decoded.
        private Lz4BatchSourceRead? _read;

        public Lz4FrameBatchJob() => _fillThenAlongside = FillThenAlongside;

        /// <summary>Decodes every item; <paramref name="alongside"/> runs on the calling thread while the helpers start on the first part.</summary>
        public static void Run(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions sequential, int degree, Action? alongside = null) =>
            Run(source, destination, items, sequential, degree, Lz4JobPool<Lz4FrameBatchJob>.Rent(), alongside);

        /// <summary>
        /// Decodes every item while <paramref name="fill"/> brings the source in, front to back, on the calling thread;
        /// items are claimed largest first, each decoded once its range has arrived. <paramref name="alongside"/> runs after the fill.
        /// </summary>
        public static void RunArriving(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions sequential, int degree, Lz4BatchSourceFill fill, Action? alongside)
        {
            Lz4FrameBatchJob job = Lz4JobPool<Lz4FrameBatchJob>.Rent();
            Debug.Assert(!job._arriving && job._fill is null && job._alongside is null, "a pooled job comes back cleared");
            job._arriving = true;
            job._fill = fill;
            job._alongside = alongside;
            job._arrived = 0;
            job._abandoned = false;
            Run(source, destination, items, sequential, degree, job, job._fillThenAlongside);
        }

        /// <summary>Decodes every item, each thread reading the source range of an item it claims before decoding it.</summary>
        public static void RunReading(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions sequential, int degree, Lz4BatchSourceRead read)
        {
            Lz4FrameBatchJob job = Lz4JobPool<Lz4FrameBatchJob>.Rent();
            job._read = read;
            Run(source, destination, items, sequential, degree, job, alongside: null);
        }

        private static void Run(ReadOnlySpan<byte> source, Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> items, Lz4FrameDecoderOptions sequential, int degree, Lz4FrameBatchJob job, Action? alongside)
        {
            Debug.Assert(job._source == null && job._items == null && job._error is null, "a pooled job comes back cleared");
            Debug.Assert(job._arriving == (job._fill is not null), "the arriving mode and its fill go together");
            try
            {
                fixed (byte* sourcePointer = source)
                fixed (byte* destinationPointer = destination)
                fixed (Lz4FrameBatchItem* itemPointer = items)
                {
                    job._source = sourcePointer;
                    job._sourceLength = source.Length;
                    job._destination = destinationPointer;
                    job._destinationLength = destination.Length;
                    job._items = itemPointer;
                    job._itemCount = items.Length;
                    job._options = sequential;
                    job._errorIndex = int.MaxValue;
                    job._error = null;
                    // The claim word counts at most MaximumBlocks - 1 items a call; a longer batch runs in parts.
                    for (int first = 0; first < items.Length; first += Lz4ParallelJob.MaximumBlocks - 1)
                        job.RunPart(first, Math.Min(items.Length - first, Lz4ParallelJob.MaximumBlocks - 1), degree, first == 0 ? alongside : null);
                }
                // A fill that failed has thrown above; a batch that ran to here has its whole source.
                Debug.Assert(!job._arriving || (!job._abandoned && job._arrived == source.Length), "an arriving batch that finished has all of its source");
                job._error?.Throw();
            }
            finally
            {
                job._source = null;
                job._destination = null;
                job._items = null;
                job._error = null;
                job._arriving = false;
                job._fill = null;
                job._alongside = null;
                job._read = null;
                Lz4JobPool<Lz4FrameBatchJob>.Return(job);
            }
        }

        private void RunPart(int first, int count, int degree, Action? alongside)
        {
            if (_order.Length < count)
            {
                _order = new int[Math.Max(count, _order.Length * 2)];
                _keys = new long[_order.Length];
            }
            for (int i = 0; i < count; i++)
            {
                _order[i] = first + i;
                // Largest first; equal lengths keep item order. So too for a source that arrives: in body order a body
                // can give its largest buffer to a helper last, which then bounds the batch (docs/parallel-read.md).
                _keys[i] = -(((long)_items[first + i].DestinationLength << 32) - i);
            }
            Array.Sort(_keys, _order, 0, count);
            Debug.Assert(count < 2 || _items[_order[0]].DestinationLength >= _items[_order[count - 1]].DestinationLength, "items are claimed largest first");
            Prepare(count);
            try
            {
                // With work alongside, the calling thread is busy at first, so even one item gets a helper.
                StartAndClaim(alongside is null ? Math.Min(degree, count) - 1 : Math.Min(degree - 1, count), alongside);
            }
            finally
            {
                StopAndWaitForHelpers();
            }
            ThrowIfHelperFailed();
        }

        protected override void ProcessBlock(int index)
        {
            int item = _order[index];
            Debug.Assert((uint)item < (uint)_itemCount, "a claim names an item of this batch");
            if (_arriving && !WaitArrived(in _items[item]))
                return;
            try
            {
                if (_read is not null)
                    _read(_items[item].SourceOffset, _items[item].SourceLength);
                Lz4FrameDecoder.DecodeBatchItem(
                    new ReadOnlySpan<byte>(_source, _sourceLength), new Span<byte>(_destination, _destinationLength), in _items[item], item, _options);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                // The first failing item in item order is reported, whichever thread met it.
                lock (_gate)
                {
                    Debug.Assert(item != _errorIndex, "each item is decoded once");
                    if (item < _errorIndex)
                    {
                        _errorIndex = item;
                        _error = ExceptionDispatchInfo.Capture(e);
                    }
                }
            }
        }

        protected override void AfterCallerBlock()
        {
        }

        /// <summary>The calling thread's work alongside a source that arrives: the fill to its end, then the caller's own work.</summary>
        private void FillThenAlongside()
        {
            Debug.Assert(_arriving && !_abandoned, "the fill runs once, on an arriving batch");
            try
            {
                int arrived = Volatile.Read(ref _arrived);
                while (arrived < _sourceLength)
                {
                    int next = NextArrived(_fill!, arrived, _sourceLength);
                    // Only the filler writes the count, so it only grows: a helper that saw a range arrive may read it.
                    Debug.Assert(next > arrived && next <= _sourceLength && Volatile.Read(ref _arrived) == arrived, "the arrived count only grows, and only here");
                    arrived = next;
                    Volatile.Write(ref _arrived, arrived);
                }
            }
            catch
            {
                // Helpers waiting for bytes that will not come skip their items; the caller claims no more.
                Debug.Assert(Volatile.Read(ref _arrived) < _sourceLength, "a fill fails only before the whole source is there");
                _abandoned = true;
                throw;
            }
            _alongside?.Invoke();
        }

        /// <summary>Calls the fill once and holds it to its contract: each call brings more, up to the source's length.</summary>
        internal static int NextArrived(Lz4BatchSourceFill fill, int arrived, int sourceLength)
        {
            int next = fill(arrived);
            if (next <= arrived || next > sourceLength)
                throw new InvalidOperationException($"The batch's source fill returned {next} after {arrived} of {sourceLength} bytes had arrived; each call must bring more, up to the source's length.");
            return next;
        }

        /// <summary>Waits until the item's source range has arrived; false when the fill failed first.</summary>
        private bool WaitArrived(in Lz4FrameBatchItem item)
        {
            long end = (long)item.SourceOffset + item.SourceLength;
            Debug.Assert(_arriving && _fill is not null && end <= _sourceLength, "a helper waits only for a range of an arriving source");
            long napAfter = 0;
            for (int i = 1; Volatile.Read(ref _arrived) < end; i++)
            {
                if (_abandoned)
                    return false;
                // The filler is copying on another core: spin, and yield now and then in case it has none.
                if ((i & 63) != 0)
                {
                    Thread.SpinWait(20);
                    continue;
                }
                // A source slower than memory (a file on a network share) must not keep a core spinning for the whole
                // body: past a millisecond, many chunks from memory or the page cache, the helper naps between looks.
                long now = Stopwatch.GetTimestamp();
                if (napAfter == 0)
                    napAfter = now + SpinBeforeNap;
                Debug.Assert(napAfter > 0 && SpinBeforeNap > 0, "the spin phase has a deadline before the naps");
                if (now < napAfter)
                    Thread.Yield();
                else
                    Thread.Sleep(1);
            }
            Debug.Assert(Volatile.Read(ref _arrived) >= end, "an item is decoded only once its range has arrived");
            return true;
        }

        private static readonly long SpinBeforeNap = Stopwatch.Frequency / 1000;
    }
}
