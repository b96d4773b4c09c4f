using System;
using System.Diagnostics;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Every bound and timing constant of the parallel scheduling, in one place; docs/threading.md records the
    /// measurements behind them.
    /// </summary>
    internal static class Lz4ParallelTiming
    {
        /// <summary>Most helper threads alive at once: LZ4 is memory-bound well before 16 threads, and a 64-core host must not get 63 threads.</summary>
        internal const int MaxHelperThreads = 15;

        /// <summary>Most work items one call posts or queues besides the caller, so one call uses at most 16 threads.</summary>
        internal const int MaxWorkItemsPerCall = MaxHelperThreads;

        /// <summary>A parked helper that gets no job for this long exits; the next parallel call starts a new one.</summary>
        internal const int HelperIdleExitMilliseconds = 5000;

        /// <summary>A helper that helped spins this long (µs) for the next call: waking a parked thread costs more than the gaps between a reader's buffers.</summary>
        internal const int HelperSpinMicroseconds = 300;

        /// <summary>The most a helper spins (µs) while the call it helped still runs (the caller's last block), before <see cref="HelperSpinMicroseconds"/>.</summary>
        internal const int HelperSpinWhileRunningMicroseconds = 2000;

        /// <summary>The most the caller spins (µs) for a block another thread runs before it parks: shorter than most such waits, cheaper than a wake-up.</summary>
        internal const int CallerSpinMicroseconds = 200;

        /// <summary>A yield longer than this (µs) means another thread was ready: no core to spare, so stop spinning.</summary>
        internal const int YieldedMicroseconds = 20;

        /// <summary>A helper that starts within this (µs) of its call got a free core: only then may the caller spin for it.</summary>
        internal const int PromptStartMicroseconds = 50;

        /// <summary>Stopwatch ticks in <paramref name="microseconds"/>, at least one.</summary>
        internal static long Ticks(int microseconds) => Math.Max(1, microseconds * Stopwatch.Frequency / 1_000_000);

        /// <summary>The helper threads the process may have: one per extra core, at most <see cref="MaxHelperThreads"/>.</summary>
        internal static int HelperBound => Math.Max(0, Math.Min(Environment.ProcessorCount - 1, MaxHelperThreads));
    }
}
