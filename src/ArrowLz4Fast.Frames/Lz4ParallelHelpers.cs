using System;
using System.Diagnostics;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Long-lived helper threads for parallel calls: one per extra core (<see cref="Environment.ProcessorCount"/> - 1),
    /// created on the first parallel call. A call posts its job to an idle helper instead of queuing a thread-pool work
    /// item; a helper that helped a call spins for a few tens of µs afterwards before it parks, so the next call of a
    /// caller working through buffers one after the other (an Arrow read or write) finds it running instead of paying
    /// a wake-up. When no helper is idle (concurrent callers), the call queues thread-pool items as before.
    /// </summary>
    /// <remarks>
    /// The guarantees of <see cref="Lz4ParallelJob"/> hold unchanged: a posted job is only a work item that may start
    /// late, exactly like a queued one; the caller never waits for it to start. Helpers are not pool threads, so a
    /// saturated pool does not stop them, and a call never depends on them. A helper spins only after a job in which it
    /// processed at least one block (it got a core in time): a helper that arrives after its call is over (every core
    /// busy) parks at once, so under load it takes no CPU from the callers.
    /// </remarks>
    internal static class Lz4ParallelHelpers
    {
        /// <summary>
        /// How long a helper spins for the next call after helping one (µs); 0 parks at once. A benchmark switch. 300 µs:
        /// a reader's big buffers come between smaller ones that take a few hundred µs (the alternating
        /// <c>--parallel-probe</c>: 1 core then 2 cores), and a wake-up costs about 100 µs on the project's VM; with 50 µs the
        /// helper was parked at nearly every such call. The spin stops as soon as another thread wants the core.
        /// </summary>
        internal static int SpinMicroseconds = 300;

        /// <summary>Post jobs to the helpers (true) or queue thread-pool items only (false, the earlier scheduling). A benchmark switch.</summary>
        internal static bool Enabled = true;

        /// <summary>
        /// The longest a helper spins (µs) while the call it helped is still running (the caller finishing its own last
        /// block, up to one block's time), before the <see cref="SpinMicroseconds"/> that follow. A benchmark switch.
        /// </summary>
        internal static int SpinWhileRunningMicroseconds = 2000;

        /// <summary>A yield longer than this (20 µs) means another thread ran: there is no idle core to spin on.</summary>
        internal static readonly long YieldedTicks = Math.Max(1, Stopwatch.Frequency / 50_000);

        /// <summary>A helper that starts within this (50 µs) of its call got a free core: the caller may spin for it.</summary>
        internal static readonly long PromptTicks = Math.Max(1, Stopwatch.Frequency / 20_000);

        private static Helper[]? s_helpers;

        [ThreadStatic]
        private static bool t_isHelperThread;

        [ThreadStatic]
        private static byte[]? t_scratch;

        /// <summary>Whether the current thread is one of the helpers (not the caller, not a thread-pool thread).</summary>
        internal static bool IsHelperThread => t_isHelperThread;

        /// <summary>
        /// The current helper thread's own output buffer, at least <paramref name="length"/> bytes: grown to the next
        /// power of two (at least 64 KiB) when a longer block comes, so a helper keeps one buffer of the largest block
        /// it compressed (256 KiB at the default block size) for its life; thread-pool threads, which come and go, use
        /// none.
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

        /// <summary>Posts <paramref name="job"/> to up to <paramref name="wanted"/> idle helpers; returns how many took it.</summary>
        internal static int Post(Lz4ParallelJob job, int wanted)
        {
            if (wanted <= 0 || !Volatile.Read(ref Enabled))
                return 0;
            Helper[] helpers = Volatile.Read(ref s_helpers) ?? Create();
            int posted = 0;
            for (int i = 0; i < helpers.Length && posted < wanted; i++)
            {
                if (helpers[i].TryPost(job))
                    posted++;
            }
            return posted;
        }

        private static Helper[] Create()
        {
            var helpers = new Helper[Math.Max(0, Math.Min(Environment.ProcessorCount, 64) - 1)];
            for (int i = 0; i < helpers.Length; i++)
                helpers[i] = new Helper();
            Helper[]? existing = Interlocked.CompareExchange(ref s_helpers, helpers, null);
            if (existing != null)
                return existing;
            for (int i = 0; i < helpers.Length; i++)
                helpers[i].Start(i);
            return helpers;
        }

        [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Helpers live as long as the process.")]
        private sealed class Helper
        {
            // Spinning is done here, with a time limit; the event only parks.
            private readonly ManualResetEventSlim _wake = new(false, spinCount: 1);
            private Lz4ParallelJob? _posted;
            private int _parked;

            public void Start(int index)
            {
                var thread = new Thread(Loop) { IsBackground = true, Name = "ArrowLz4Fast helper " + index };
                thread.Start();
            }

            public bool TryPost(Lz4ParallelJob job)
            {
                // A job stays posted until the helper has run it: the slot is the helper's "busy" flag.
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
                        if (job == null)
                            _wake.Wait();
                        Volatile.Write(ref _parked, 0);
                        continue;
                    }

                    // RunAsHelper clears _posted (the helper is free) before the caller can return; a job posted
                    // after that is picked up at the top of the loop.
                    if (job.RunAsHelper(ref _posted))
                        helped = job;
                }
            }

            /// <summary>
            /// Spins while the call <paramref name="helped"/> is running (bounded: the caller finishing its own last
            /// block), then <see cref="SpinMicroseconds"/> more, for the next post; yields now and then so that a
            /// thread that is ready gets the core.
            /// </summary>
            private Lz4ParallelJob? SpinForJob(Lz4ParallelJob? helped)
            {
                int tail = Volatile.Read(ref SpinMicroseconds);
                if (tail <= 0)
                    return null;
                long ticksPerMicrosecond = Math.Max(1, Stopwatch.Frequency / 1_000_000);
                long now = Stopwatch.GetTimestamp();
                long runningDeadline = now + Volatile.Read(ref SpinWhileRunningMicroseconds) * ticksPerMicrosecond;
                long deadline = now + tail * ticksPerMicrosecond;
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
                        deadline = now + tail * ticksPerMicrosecond;
                    }
                    if (helped == null && now > deadline)
                        return null;
                    Thread.Yield();
                    // A yield that took long gave the core to another thread that was ready: the machine has no core
                    // to spare, so stop spinning (parking costs the next call a wake-up, spinning costs other threads).
                    if (Stopwatch.GetTimestamp() - now > YieldedTicks)
                        return null;
                }
            }
        }
    }
}
