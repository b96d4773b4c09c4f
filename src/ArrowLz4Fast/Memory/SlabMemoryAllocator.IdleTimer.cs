using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>The idle timer: armed when memory is first retained, it ticks four times per delay and, after a delay without allocations or returns, takes the caches' blocks back and gives every free slab back to the OS.</summary>
    public sealed partial class SlabMemoryAllocator
    {
        /// <summary>Starts the idle timer when memory is first retained. Under the slab lock.</summary>
        private void ArmIdleTimer()
        {
            if (_idleTrimDelayMs < 0 || _idleTimerArmed)
                return;
            _idleTimer ??= CreateIdleTimer();
            _idleTimerArmed = true;
            _quietTicks = 0;
            _idleTimer.Change(IdleTickMs, IdleTickMs);
        }

        /// <summary>The idle timer ticks four times per delay: memory goes back between 1 and 1.25 delays after the last activity.</summary>
        private int IdleTickMs => Math.Max(1, _idleTrimDelayMs / QuietTicksToTrim);

        private Timer CreateIdleTimer()
        {
            // The timer holds the allocator weakly, so an allocator nobody uses can be collected (its timer with it),
            // and it does not capture the creating thread's execution context.
            bool restoreFlow = false;
            try
            {
                if (!ExecutionContext.IsFlowSuppressed())
                {
                    ExecutionContext.SuppressFlow();
                    restoreFlow = true;
                }
                return new Timer(static state => OnIdleTimer(state), new WeakReference<SlabMemoryAllocator>(this), Timeout.Infinite, Timeout.Infinite);
            }
            finally
            {
                if (restoreFlow)
                    ExecutionContext.RestoreFlow();
            }
        }

        private static void OnIdleTimer(object? state)
        {
            if (state is WeakReference<SlabMemoryAllocator> reference && reference.TryGetTarget(out SlabMemoryAllocator? allocator))
                allocator.CheckIdle();
        }

        private void CheckIdle()
        {
            lock (_slabLock)
            {
                if (!_idleTimerArmed)
                    return;
                long activity = 0;
                for (int i = 0; i < _activity.Length; i++)
                    activity += Volatile.Read(ref _activity[i].Value);
                PruneCaches();
                List<ThreadCache>? quietCaches = null;
                foreach (ThreadCache cache in _caches)
                {
                    long cacheActivity = Volatile.Read(ref cache.Activity);
                    activity += cacheActivity;
                    // A thread that stopped using the allocator while others go on: its cached blocks and the group
                    // it was filling go back after the same grace period as the whole allocator's memory.
                    if (cacheActivity != cache.ActivitySeen)
                    {
                        cache.ActivitySeen = cacheActivity;
                        cache.QuietTicks = 0;
                    }
                    else if (++cache.QuietTicks == QuietTicksToTrim)
                    {
                        (quietCaches ??= new List<ThreadCache>()).Add(cache);
                    }
                }
                if (activity != _activitySeen)
                {
                    _activitySeen = activity;
                    _quietTicks = 0;
                    if (quietCaches is not null)
                        ReclaimFrom(quietCaches);
                    return;
                }
                if (++_quietTicks < QuietTicksToTrim)
                    return;
                _quietTicks = 0;
                ReclaimCachedBlocks();
                ReleaseFreeSlabs(0, ArrowLz4FastMetrics.TrimIdle);
                // Slabs with buffers still in use are looked at again later; with none left the timer sleeps until the
                // next slab is taken.
                if (_slabs.Count == 0)
                {
                    _idleTimerArmed = false;
                    _idleTimer!.Change(Timeout.Infinite, Timeout.Infinite);
                }
            }
        }
    }
}
