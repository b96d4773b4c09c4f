using System;
using System.Buffers;
using System.Diagnostics;
using System.Threading;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A bounded single-producer ring of small batch messages for <see cref="IpcCompressingStream"/>: the writer's
    /// thread verifies each message, copies it whole into a slot and publishes it; one worker
    /// (<see cref="IpcRingWorker"/>) takes the slots in order and compresses them while the writer serializes the next
    /// batch; the writer queues finished slots for the output in order. Either thread claims the next slot, so the
    /// writer never waits for a worker that has not started: when it needs a slot's output it compresses any slot not
    /// yet claimed itself.
    /// </summary>
    /// <remarks>
    /// A slot is reused only once its output was written to the output stream. Counters wrap: only their differences
    /// and equality are used.
    /// </remarks>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The event never creates a kernel handle (its WaitHandle is never read); it goes with the ring.")]
    internal sealed class IpcMessageRing : IDisposable
    {
        /// <summary>Slots in the ring, a power of two: the most messages published and not yet written to the output.</summary>
        internal const int SlotCount = 8;

        private const int WorkerNone = 0;
        private const int WorkerRunning = 1;
        private const int WorkerLeft = 2;

        private static readonly long s_spinTicks = Lz4ParallelTiming.Ticks(Lz4ParallelTiming.HelperSpinMicroseconds);

        private readonly IpcRingSlot[] _slots = new IpcRingSlot[SlotCount];
        private readonly IpcRingSlot _overflow = new();
        private readonly Lz4FrameEncoderOptions _encoder;
        private readonly double _minSpaceSavings;
        private readonly IpcRingWorker _worker;
        private readonly ManualResetEventSlim _signal = new(false, spinCount: 1);

        // Written by the writer only: published, queued for the output, written to it.
        private int _published;
        private int _queued;
        private int _written;
        // Claimed by either thread, in order.
        private int _claimed;
        private int _workerState;
        private int _stop;
        private int _waiting;

        public IpcMessageRing(Lz4FrameEncoderOptions encoder, double minSpaceSavings)
        {
            _encoder = encoder;
            _minSpaceSavings = minSpaceSavings;
            _worker = new IpcRingWorker(this);
            for (int i = 0; i < _slots.Length; i++)
                _slots[i] = new IpcRingSlot();
        }

        /// <summary>Whether the options allow a second thread: only then does a ring run.</summary>
        public static bool Applies(Lz4FrameEncoderOptions encoder) =>
            encoder.Parallelism.IsParallel && Math.Min(encoder.Parallelism.MaxDegreeOfParallelism, Environment.ProcessorCount) >= 2;

        /// <summary>Whether a slot is free: fewer than <see cref="SlotCount"/> messages published and not yet written.</summary>
        public bool HasRoom => _published - _written < SlotCount;

        /// <summary>The slot the next message goes into (when <see cref="HasRoom"/>).</summary>
        public IpcRingSlot Next => _slots[_published & (SlotCount - 1)];

        /// <summary>A slot outside the ring, for a message the writer compresses itself when the ring is full.</summary>
        public IpcRingSlot Overflow => _overflow;

        /// <summary>Whether every published message is queued for the output.</summary>
        public bool IsEmpty => _queued == _published;

        /// <summary>Publishes <see cref="Next"/>, filled, and posts the worker if none is running.</summary>
        public void Publish()
        {
            // A full fence: a worker that stops looking after this sees the slot, or this thread sees it left.
            Interlocked.Exchange(ref _published, _published + 1);
            int state = Volatile.Read(ref _workerState);
            if (state == WorkerRunning)
                return;
            if (state == WorkerLeft)
                _worker.End();
            Volatile.Write(ref _workerState, WorkerRunning);
            _worker.Begin();
        }

        /// <summary>The oldest slot not yet queued, when it is compressed already.</summary>
        public bool TryTakeDone(out IpcRingSlot slot)
        {
            slot = _slots[_queued & (SlotCount - 1)];
            if (IsEmpty || !slot.IsDone)
                return false;
            _queued++;
            return true;
        }

        /// <summary>The oldest slot not yet queued, compressed by this thread if no one has claimed it, else waited for.</summary>
        public IpcRingSlot TakeOldest()
        {
            Debug.Assert(!IsEmpty, "a slot is published");
            IpcRingSlot slot = _slots[_queued & (SlotCount - 1)];
            var spinner = new SpinWait();
            while (!slot.IsDone)
            {
                if (TryClaim(out IpcRingSlot? claimed))
                {
                    claimed.Process(_encoder, _minSpaceSavings);
                    continue;
                }
                // Claimed by the worker, which is running it.
                if (!spinner.NextSpinWillYield)
                {
                    spinner.SpinOnce();
                    continue;
                }
                _signal.Reset();
                Interlocked.Exchange(ref _waiting, 1);
                if (!slot.IsDone)
                    _signal.Wait();
                Volatile.Write(ref _waiting, 0);
            }
            _queued++;
            return slot;
        }

        /// <summary>The output queued so far has been written: its slots are free.</summary>
        public void Written() => _written = _queued;

        /// <summary>Stops the worker and waits until it has left (one not started never runs); slots it did not claim stay for the writer.</summary>
        public void StopWorker()
        {
            if (_workerState == WorkerNone)
                return;
            Volatile.Write(ref _stop, 1);
            _worker.End();
            _workerState = WorkerNone;
            _stop = 0;
        }

        /// <summary>The worker's loop: compresses slots as they are published, spins briefly for the next, then leaves.</summary>
        internal void Consume()
        {
            while (true)
            {
                while (Volatile.Read(ref _stop) == 0 && TryClaim(out IpcRingSlot? slot))
                    Complete(slot);
                if (Volatile.Read(ref _stop) != 0)
                    return;
                if (SpinForSlot())
                    continue;
                // A full fence: a slot published before the writer could see this is claimed below.
                Interlocked.Exchange(ref _workerState, WorkerLeft);
                while (Volatile.Read(ref _stop) == 0 && TryClaim(out IpcRingSlot? slot))
                    Complete(slot);
                return;
            }
        }

        private void Complete(IpcRingSlot slot)
        {
            slot.Process(_encoder, _minSpaceSavings);
            // Process ended with a full fence: a writer about to wait has said so, or sees the slot done.
            if (Volatile.Read(ref _waiting) != 0)
                _signal.Set();
        }

        /// <summary>Spins up to the helpers' spin time for a slot to be published; false when none came, or the core was wanted elsewhere.</summary>
        private bool SpinForSlot()
        {
            long deadline = Stopwatch.GetTimestamp() + s_spinTicks;
            for (int i = 1; ; i++)
            {
                if (Volatile.Read(ref _claimed) != Volatile.Read(ref _published))
                    return true;
                if (Volatile.Read(ref _stop) != 0)
                    return false;
                if ((i & 7) != 0)
                {
                    Thread.SpinWait(20);
                    continue;
                }
                long now = Stopwatch.GetTimestamp();
                if (now > deadline)
                    return false;
                Thread.Yield();
                // Another thread took the core during the yield: none to spare, leave instead of spinning.
                if (Stopwatch.GetTimestamp() - now > Lz4ParallelHelpers.YieldedTicks)
                    return false;
            }
        }

        private bool TryClaim(out IpcRingSlot slot)
        {
            while (true)
            {
                int claimed = Volatile.Read(ref _claimed);
                if (claimed == Volatile.Read(ref _published))
                {
                    slot = null!;
                    return false;
                }
                if (Interlocked.CompareExchange(ref _claimed, claimed + 1, claimed) == claimed)
                {
                    slot = _slots[claimed & (SlotCount - 1)];
                    return true;
                }
            }
        }

        /// <summary>Stops the worker and gives every slot's arrays back.</summary>
        public void Dispose()
        {
            StopWorker();
            foreach (IpcRingSlot slot in _slots)
                Release(slot);
            Release(_overflow);
        }

        private static void Release(IpcRingSlot slot)
        {
            slot.Dispose();
            if (slot.Message.Bytes is not null)
                ArrayPool<byte>.Shared.Return(slot.Message.Bytes);
            slot.Message = default;
        }
    }
}
