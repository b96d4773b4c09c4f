using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>Thread caches: each thread keeps a few free blocks of this allocator to itself, reused without a lock or an atomic operation. A thread that allocates from another allocator for long moves its cache there; trims take every cache's blocks back through the revoke handshake that <see cref="ThreadCache"/> describes.</summary>
    public sealed partial class SlabMemoryAllocator
    {
        /// <summary>
        /// This thread's cache: held weakly, so that the cache (which holds its allocator) never keeps a dropped
        /// allocator alive; the allocator holds its caches.
        /// </summary>
        [ThreadStatic]
        private static WeakReference<ThreadCache>? t_cache;

        /// <summary>Allocations on this thread from an allocator other than its cache's, counted to move the cache over.</summary>
        [ThreadStatic]
        private static int t_cacheMisses;

        /// <summary>
        /// A thread that allocates from another allocator than its cache's this many times moves its cache to it: a
        /// thread alternating between two allocators does not move on every call, one that switches for good soon does.
        /// </summary>
        private const int MissesToMoveCache = 64;

        /// <summary>This thread's cache if it belongs to this allocator.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private ThreadCache? CurrentCache()
        {
            WeakReference<ThreadCache>? reference = t_cache;
            return reference is not null && reference.TryGetTarget(out ThreadCache? cache) && cache.Allocator == this ? cache : null;
        }

        /// <summary>This thread's cache, made (or moved here from another allocator) when the thread needs one.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private ThreadCache? CacheForAllocation()
        {
            WeakReference<ThreadCache>? reference = t_cache;
            return reference is not null && reference.TryGetTarget(out ThreadCache? cache) && cache.Allocator == this
                ? cache
                : CacheForAllocationSlow();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private ThreadCache? CacheForAllocationSlow()
        {
            WeakReference<ThreadCache>? reference = t_cache;
            if (reference is not null && reference.TryGetTarget(out ThreadCache? cache))
            {
                if (++t_cacheMisses < MissesToMoveCache)
                    return null;
                // The thread has moved to this allocator: its blocks of the other go back to that allocator's lists.
                cache.Allocator.RetireCache(cache);
            }
            return BindCache();
        }

        private ThreadCache BindCache()
        {
            var cache = new ThreadCache(this, Thread.CurrentThread);
            lock (_slabLock)
            {
                PruneCaches();
                _caches.Add(cache);
                Volatile.Write(ref _cacheSnapshot, _caches.ToArray());
            }
            t_cacheMisses = 0;
            if (t_cache is null)
                t_cache = new WeakReference<ThreadCache>(cache);
            else
                t_cache.SetTarget(cache);
            return cache;
        }

        /// <summary>
        /// Hands back the blocks of a cache whose thread (the calling one, outside any operation on it) moves to
        /// another allocator, and forgets the cache.
        /// </summary>
        private void RetireCache(ThreadCache cache)
        {
            lock (_slabLock)
            {
                // Under the lock no trim holds the cache, and its own thread is here, so nobody else touches it.
                cache.FlushTo(this);
                cache.Retire();
                PruneCaches(); // forgets it, and enforces the cap on what it handed back
            }
        }

        /// <summary>
        /// Forgets the caches of threads that moved to another allocator (already emptied) or died (emptied here: a
        /// dead thread cannot be in an operation on its cache, and its writes were complete when it ended). Under the
        /// slab lock.
        /// </summary>
        private void PruneCaches()
        {
            if (PruneCachesOnly())
                ReleaseFreeSlabs(_maxIdleBytes, ArrowLz4FastMetrics.TrimLimit);
        }

        /// <summary><see cref="PruneCaches"/> without enforcing the cap after; whether any cache was forgotten.</summary>
        private bool PruneCachesOnly()
        {
            int before = _caches.Count;
            for (int i = before - 1; i >= 0; i--)
            {
                ThreadCache cache = _caches[i];
                if (cache.Retired)
                {
                    _caches.RemoveAt(i);
                }
                else if (!cache.Thread.IsAlive)
                {
                    cache.FlushTo(this);
                    cache.Retire();
                    _caches.RemoveAt(i);
                }
            }
            if (_caches.Count == before)
                return false;
            Volatile.Write(ref _cacheSnapshot, _caches.ToArray());
            return true;
        }

        /// <summary>
        /// Takes every thread cache's blocks back to the shared lists, counted free, so that trimming sees their slabs
        /// as they are. Under the slab lock (which a thread never holds while in an operation on its cache, so the
        /// waits below end). See <see cref="ThreadCache"/> for the handshake.
        /// </summary>
        private void ReclaimCachedBlocks()
        {
            PruneCachesOnly();
            ReclaimFrom(_caches);
        }

        /// <summary>
        /// Takes the blocks of <paramref name="caches"/> back and lets go of their groups (see
        /// <see cref="ReclaimCachedBlocks"/>). A cache seen empty is not revoked (a block its thread caches meanwhile
        /// was in use when the trim looked), so a trim with nothing cached costs no process-wide barrier.
        /// </summary>
        private void ReclaimFrom(List<ThreadCache> caches)
        {
            var holding = new List<ThreadCache>();
            foreach (ThreadCache cache in caches)
            {
                // The buffers of the group it was filling that are dropped undisposed come back from now on.
                cache.DropGroup();
                if (Volatile.Read(ref cache.CachedBytes) > 0)
                    holding.Add(cache);
            }
            if (holding.Count == 0)
                return;
            foreach (ThreadCache cache in holding)
                cache.Revoke();
            ThreadCache.BarrierAfterRevoke();
            foreach (ThreadCache cache in holding)
            {
                try
                {
                    cache.WaitUntilIdle();
                    cache.FlushTo(this);
                }
                finally
                {
                    cache.Restore();
                }
            }
        }

        /// <summary>Blocks in this thread's cache of this allocator, for tests.</summary>
        internal int CachedOnThisThread() => CurrentCache()?.CountCached() ?? 0;

        /// <summary>Bytes of the blocks in threads' caches (read racily; tests read it too).</summary>
        internal long CachedBytesOfAllCaches()
        {
            long total = 0;
            foreach (ThreadCache cache in Volatile.Read(ref _cacheSnapshot))
                total += Volatile.Read(ref cache.CachedBytes);
            return total;
        }
    }
}
