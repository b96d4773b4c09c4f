using System;
using System.Buffers;
using System.Diagnostics;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// <see cref="Lz4FrameEncoder.StartEncodeBatch"/> and the parallel path of <see cref="Lz4FrameEncoder.TryEncodeBatch"/>:
    /// the items are claimed largest source first, each encoded as one frame by the thread that claimed it. The helpers
    /// start when the batch is published; the thread that completes it claims what they have not and then waits only
    /// for items other threads are running, so an encode started while the caller does other work overlaps that work.
    /// Jobs are pooled and keep their claim-order arrays, so a steady writer allocates nothing per batch.
    /// </summary>
    internal sealed unsafe class Lz4FrameEncodeBatchJob : Lz4ParallelJob
    {
        private byte* _source;
        private int _sourceLength;
        private byte* _destination;
        private int _destinationLength;
        private Lz4FrameBatchItem* _items;
        private int* _written;
        private int _count;
        private Lz4FrameEncoderOptions _options;
        private int[] _order = new int[16];
        private long[] _keys = new long[16];

        // The pins of memory a started batch was given (none for a batch the caller has fixed for the whole call).
        private MemoryHandle _sourcePin, _destinationPin, _itemsPin, _writtenPin;

        /// <summary>Counts the calls that rented this job, so a handle completes only the call it was given, once.</summary>
        internal int Generation { get; private set; }

        /// <summary>A call was started and not yet completed.</summary>
        internal bool IsPending { get; private set; }

        /// <summary>Pins the memory and starts the batch (see <see cref="Start(byte*, int, byte*, int, Lz4FrameBatchItem*, int*, int, Lz4FrameEncoderOptions, int, Lz4FrameEncodeBatchJob?)"/>).</summary>
        public static Lz4FrameEncodeBatchJob Start(ReadOnlyMemory<byte> source, Memory<byte> destination, ReadOnlyMemory<Lz4FrameBatchItem> items,
            Memory<int> written, Lz4FrameEncoderOptions sequential, int degree, Lz4FrameEncodeBatchJob? after = null)
        {
            MemoryHandle sourcePin = source.Pin(), destinationPin = destination.Pin(), itemsPin = items.Pin(), writtenPin = written.Pin();
            Lz4FrameEncodeBatchJob job = Start((byte*)sourcePin.Pointer, source.Length, (byte*)destinationPin.Pointer, destination.Length,
                (Lz4FrameBatchItem*)itemsPin.Pointer, (int*)writtenPin.Pointer, items.Length, sequential, degree, after);
            (job._sourcePin, job._destinationPin, job._itemsPin, job._writtenPin) = (sourcePin, destinationPin, itemsPin, writtenPin);
            return job;
        }

        /// <summary>
        /// Publishes the batch and posts up to <paramref name="degree"/> - 1 helpers; the calling thread claims nothing
        /// until <see cref="Complete"/>. At most <see cref="Lz4ParallelJob.MaximumBlocks"/> - 1 items; the memory must stay
        /// where it is until then. Started <paramref name="after"/> a batch still running, it posts no helper: that batch's
        /// helpers move on to it, and that batch's <see cref="Complete"/> posts the ones still missing.
        /// </summary>
        public static Lz4FrameEncodeBatchJob Start(byte* source, int sourceLength, byte* destination, int destinationLength, Lz4FrameBatchItem* items,
            int* written, int count, Lz4FrameEncoderOptions sequential, int degree, Lz4FrameEncodeBatchJob? after = null)
        {
            Debug.Assert(after is null || after.IsPending, "a batch follows one not yet completed");
            Debug.Assert(count > 0 && count < MaximumBlocks, "one claim word's worth of items");
            Debug.Assert(!sequential.Parallelism.IsParallel, "each item is encoded by one thread");
            Debug.Assert(degree > 1, "a sequential batch is encoded where it is asked for");
            Lz4FrameEncodeBatchJob job = Lz4JobPool<Lz4FrameEncodeBatchJob>.Rent();
            Debug.Assert(!job.IsPending, "a pooled job has no call in progress");
            job.Generation++;
            job.IsPending = true;
            job._source = source;
            job._sourceLength = sourceLength;
            job._destination = destination;
            job._destinationLength = destinationLength;
            job._items = items;
            job._written = written;
            job._count = count;
            job._options = sequential;
            if (job._order.Length < count)
            {
                job._order = new int[Math.Max(count, job._order.Length * 2)];
                job._keys = new long[job._order.Length];
            }
            for (int i = 0; i < count; i++)
            {
                job._order[i] = i;
                // Largest first (the largest bounds the batch, so it starts first); equal lengths keep item order.
                job._keys[i] = -(((long)items[i].SourceLength << 32) - i);
            }
            Array.Sort(job._keys, job._order, 0, count);
            job.Prepare(count);
            if (after is null)
                job.Start(Math.Min(degree - 1, count));
            else
                job.StartAfter(Math.Min(degree - 1, count), after);
            return job;
        }

        /// <summary>
        /// Claims the items no helper has, waits for the ones helpers are running (meanwhile encoding items of a batch
        /// started after this one), releases the memory and returns the job to its pool; <see langword="false"/> when
        /// some frame did not fit its range (its length is then 0).
        /// </summary>
        public bool Complete()
        {
            Debug.Assert(IsPending, "a started call is completed once");
            IsPending = false;
            bool fits = true;
            try
            {
                try
                {
                    ClaimRemaining();
                }
                finally
                {
                    ClaimSuccessorWhileHelpersFinish();
                }
                ThrowIfHelperFailed();
                for (int i = 0; i < _count; i++)
                {
                    Debug.Assert(_written[i] >= -1, "an item's frame length, or -1 when it did not fit");
                    if (_written[i] < 0)
                    {
                        fits = false;
                        _written[i] = 0;
                    }
                }
            }
            finally
            {
                _source = null;
                _destination = null;
                _items = null;
                _written = null;
                _sourcePin.Dispose();
                _destinationPin.Dispose();
                _itemsPin.Dispose();
                _writtenPin.Dispose();
                (_sourcePin, _destinationPin, _itemsPin, _writtenPin) = (default, default, default, default);
                Lz4JobPool<Lz4FrameEncodeBatchJob>.Return(this);
            }
            return fits;
        }

        protected override void ProcessBlock(int index)
        {
            int item = _order[index];
            Debug.Assert(item >= 0 && item < _count, "the claim order holds the call's items");
            _written[item] = Lz4FrameEncoder.EncodeBatchItem(
                new ReadOnlySpan<byte>(_source, _sourceLength), new Span<byte>(_destination, _destinationLength), in _items[item], _options);
        }

        protected override void AfterCallerBlock()
        {
        }
    }
}
