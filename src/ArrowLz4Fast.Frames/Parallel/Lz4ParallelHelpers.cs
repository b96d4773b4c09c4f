using System;
using System.Diagnostics;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Helper threads for parallel calls, at most <see cref="Lz4ParallelTiming.HelperBound"/> (one per extra core, capped),
    /// each started by the first call that finds its slot empty and exiting after
    /// <see cref="Lz4ParallelTiming.HelperIdleExitMilliseconds"/> without work. A call posts its job to an idle helper
    /// instead of queuing a thread-pool item; a helper that helped a call spins briefly for the next one before it
    /// parks, so a caller working through buffers one after the other finds it running instead of paying a wake-up.
    /// When no helper slot is free (concurrent callers), the call queues thread-pool items.
    /// </summary>
    /// <remarks>
    /// The guarantees of <see cref="Lz4ParallelJob"/> hold unchanged: a posted job is only a work item that may start
    /// late (a new helper's thread may take a while to start), exactly like a queued one; the caller never waits for it
    /// to start. A helper spins only after a job in which it processed at least one block (it got a core in time): one
    /// that arrives after its call is over (every core busy) parks at once, so under load it takes no CPU from callers.
    /// </remarks>
    internal static class Lz4ParallelHelpers
    {
        private static readonly long s_yieldedTicks = Lz4ParallelTiming.Ticks(Lz4ParallelTiming.YieldedMicroseconds);
        private static readonly Helper?[] s_slots = new Helper?[Lz4ParallelTiming.HelperBound];

        /// <summary>Held in a retired helper's post slot forever, so no post can land there again.</summary>
        private static readonly Lz4ParallelJob s_retired = new RetiredMarkerJob();

        [ThreadStatic]
        private static bool t_isHelperThread;

        [ThreadStatic]
        private static byte[]? t_scratch;

        /// <summary>Whether the current thread is one of the helpers (not the caller, not a thread-pool thread).</summary>
        internal static bool IsHelperThread => t_isHelperThread;

        /// <summary>A yield longer than this (Stopwatch ticks) gave the core to another thread: there is none to spare.</summary>
        internal static long YieldedTicks => s_yieldedTicks;

        /// <summary>
        /// The current helper thread's own output buffer, at least <paramref name="length"/> bytes: grown to the next
        /// power of two (at least 64 KiB) when a longer block comes, and dropped with the thread when it exits idle.
        /// </summary>
        /// <param name="length">The bytes needed.</param>
        internal static byte[] Scratch(int length)
        {
            byte[]? scratch = t_scratch;
            if (scratch == null || scratch.Length < length)
            {
                int size = 64 << 10;
                while (size < length && size < (1 << 30))
                    size <<= 1;
                size = Math.Max(size, length);
#if NET5_0_OR_GREATER
                scratch = GC.AllocateUninitializedArray<byte>(size);
#else
                scratch = new byte[size];
#endif
                t_scratch = scratch;
            }
            return scratch;
        }

        /// <summary>
        /// Posts <paramref name="job"/> to up to <paramref name="wanted"/> idle helpers, starting helpers in empty slots;
        /// returns how many took it.
        /// </summary>
        internal static int Post(Lz4ParallelJob job, int wanted)
        {
            Helper?[] slots = s_slots;
            int posted = 0;
            for (int i = 0; i < slots.Length && posted < wanted; i++)
            {
                Helper? helper = Volatile.Read(ref slots[i]);
                if (helper == null)
                {
                    // The new helper holds the job before its thread starts: the job is posted, not waited for.
                    var started = new Helper(i, job);
                    if (Interlocked.CompareExchange(ref slots[i], started, null) != null)
                        continue;
                    started.Start();
                    posted++;
                }
                else if (helper.TryPost(job))
                {
                    posted++;
                }
            }
            return posted;
        }

        [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The event is a ManualResetEventSlim that never creates a kernel handle (its WaitHandle is never read); it goes with the helper.")]
        private sealed class Helper
        {
            // Spinning is done here, with a time limit; the event only parks.
            private readonly ManualResetEventSlim _wake = new(false, spinCount: 1);
            private readonly int _slot;
            private Lz4ParallelJob? _posted;
            private int _parked;

            public Helper(int slot, Lz4ParallelJob first)
            {
                _slot = slot;
                _posted = first;
            }

            public void Start()
            {
                var thread = new Thread(Loop) { IsBackground = true, Name = "ArrowLz4Fast helper " + _slot };
                thread.Start();
            }

            public bool TryPost(Lz4ParallelJob job)
            {
                // A job stays posted until the helper has run it: the slot is the helper's "busy" flag, and a retired
                // helper's slot holds a marker forever.
                if (Volatile.Read(ref _posted) != null || Interlocked.CompareExchange(ref _posted, job, null) != null)
                    return false;
                // The exchange above is a full fence, and so is the helper's before it rechecks _posted: one of the
                // two sees the other, so a parking helper is never left asleep with a job posted.
                if (Volatile.Read(ref _parked) != 0)
                    _wake.Set();
                return true;
            }

            private void Loop()
            {
                t_isHelperThread = true;
                Lz4FramesEventSource log = Lz4FramesEventSource.Log;
                if (log.IsEnabled())
                    log.HelperStarted(_slot);
                Lz4ParallelJob? helped = null;
                while (true)
                {
                    Lz4ParallelJob? job = Volatile.Read(ref _posted);
                    if (job == null && helped != null)
                        job = SpinForJob(helped);
                    helped = null;
                    if (job == null)
                    {
                        _wake.Reset();
                        Interlocked.Exchange(ref _parked, 1);
                        job = Volatile.Read(ref _posted);
                        bool woken = job != null || _wake.Wait(Lz4ParallelTiming.HelperIdleExitMilliseconds);
                        Volatile.Write(ref _parked, 0);
                        if (!woken && TryRetire())
                            break;
                        continue;
                    }

                    // RunAsHelper clears _posted (the helper is free) before the caller can return; a job posted
                    // after that is picked up at the top of the loop. It returns the last call it helped, maybe one
                    // published after this job's, which it moved on to.
                    helped = job.RunAsHelper(ref _posted);
                }
                if (log.IsEnabled())
                    log.HelperExited(_slot);
            }

            /// <summary>
            /// Retires the helper after an idle period, unless a job was posted meanwhile: the marker takes the empty
            /// post slot in one compare-and-swap, so a post either lands first (and is run) or fails (and goes elsewhere).
            /// </summary>
            private bool TryRetire()
            {
                if (Interlocked.CompareExchange(ref _posted, s_retired, null) != null)
                    return false;
                t_scratch = null;
                // Frees the slot for a new helper.
                Interlocked.CompareExchange(ref s_slots[_slot], null, this);
                return true;
            }

            /// <summary>
            /// Spins while the call <paramref name="helped"/> is running (bounded: the caller finishing its own last
            /// block), then <see cref="Lz4ParallelTiming.HelperSpinMicroseconds"/> more, for the next post; yields now
            /// and then so that a thread that is ready gets the core.
            /// </summary>
            private Lz4ParallelJob? SpinForJob(Lz4ParallelJob? helped)
            {
                long now = Stopwatch.GetTimestamp();
                long tail = Lz4ParallelTiming.Ticks(Lz4ParallelTiming.HelperSpinMicroseconds);
                long runningDeadline = now + Lz4ParallelTiming.Ticks(Lz4ParallelTiming.HelperSpinWhileRunningMicroseconds);
                long deadline = now + tail;
                for (int i = 1; ; i++)
                {
                    Lz4ParallelJob? job = Volatile.Read(ref _posted);
                    if (job != null)
                        return job;
                    if ((i & 7) != 0)
                    {
                        Thread.SpinWait(20);
                        continue;
                    }
                    now = Stopwatch.GetTimestamp();
                    if (helped != null && (!helped.IsRunning || now > runningDeadline))
                    {
                        helped = null;
                        deadline = now + tail;
                    }
                    if (helped == null && now > deadline)
                        return null;
                    Thread.Yield();
                    // A yield that took long gave the core to another thread that was ready: the machine has no core
                    // to spare, so stop spinning (parking costs the next call a wake-up, spinning costs other threads).
                    if (Stopwatch.GetTimestamp() - now > s_yieldedTicks)
                        return null;
                }
            }
        }

        /// <summary>The retired-slot marker: a job with nothing to do, never posted to anyone.</summary>
        private sealed class RetiredMarkerJob : Lz4ParallelJob
        {
            protected override void ProcessBlock(int index)
            {
            }

            protected override void AfterCallerBlock()
            {
            }
        }
    }
}
