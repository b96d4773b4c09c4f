using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// The free small blocks one thread keeps for one allocator: a few per size class, taken and given back without a
    /// lock or an atomic instruction. A read of small batches allocates and disposes thousands of buffers of a few
    /// hundred bytes, one thread at a time; on the shared free lists each of them costs a spin lock to push and another
    /// to pop, plus the slab's count of its blocks in use, and an atomic instruction costs about as much as the rest of
    /// reusing a block (docs/performance-notes.md). Only the thread the cache belongs to touches its blocks,
    /// except a trim, which takes them back after a handshake (see <see cref="TryEnter"/> and
    /// <see cref="SlabMemoryAllocator"/>'s <c>ReclaimCachedBlocks</c>).
    /// </summary>
    /// <remarks>
    /// <para>
    /// A cached block stays counted in use by its slab, as it was while its buffer lived: a block moves between a
    /// buffer and the cache of the thread that disposes it with no atomic operation on the slab, and the slab cannot
    /// be retired (so a cached block never goes stale) until the block is handed back. <see cref="CachedBytes"/> keeps
    /// the allocator's <c>BytesInUse</c> exact: cached blocks are not in use by any buffer.
    /// </para>
    /// <para>
    /// Trims (<c>Trim()</c>, the idle timer) take every cache's blocks back first; the idle timer also takes back the
    /// blocks of a cache whose thread has not used it for the grace period while others go on; the allocator retaining
    /// more than its cap takes every cache's blocks back and keeps caches empty until it is under the cap again; a thread
    /// that moves to another allocator hands its blocks back itself; and the blocks of a thread that died are taken back
    /// when the allocator next looks at its caches.
    /// </para>
    /// <para>
    /// The handshake is asymmetric, so the owning thread pays no atomic instruction: it announces an operation with a
    /// plain store to <see cref="_busy"/> and then reads <see cref="_revoked"/>; a trim sets <see cref="_revoked"/>,
    /// makes every core's stores visible (<c>Interlocked.MemoryBarrierProcessWide</c>, a membarrier on Linux), and
    /// then waits for <see cref="_busy"/> to be clear. Either the trim sees the owner busy and waits for it, or the
    /// owner sees the revocation and uses the shared lists instead: both cannot miss each other. Where the process-wide
    /// barrier does not exist (netstandard2.0), the owner's announcement is an interlocked exchange instead.
    /// </para>
    /// </remarks>
    internal sealed class ThreadCache
    {
        /// <summary>Blocks kept per size class.</summary>
        public const int Capacity = 16;

        /// <summary>
        /// The most bytes of blocks one thread keeps. Cached blocks count in use, so each keeps its slab from going back
        /// to the OS until a trim takes it back; caches take blocks only while the allocator retains no more than its
        /// cap, and crossing the cap takes every cache's blocks back, so the cap still bounds the free memory kept.
        /// </summary>
        public const long MaxBytes = 1 << 20;

        /// <summary>The largest class cached: beyond 64 KiB a buffer's own memory traffic dwarfs the free-list locks.</summary>
        public static readonly int MaxClass = SizeClasses.IndexOf(64 << 10);

        private readonly FreeBlock[] _blocks = new FreeBlock[(MaxClass + 1) * Capacity];
        private readonly byte[] _counts = new byte[MaxClass + 1];

        public ThreadCache(SlabMemoryAllocator allocator, Thread thread)
        {
            Allocator = allocator;
            Thread = thread;
        }

        /// <summary>The allocator whose blocks this cache holds.</summary>
        public SlabMemoryAllocator Allocator { get; }

        /// <summary>The thread that uses this cache: a cache whose thread has died is forgotten by its allocator.</summary>
        public Thread Thread { get; }

        /// <summary>Allocations and returns through this cache, for the idle timer (read racily: only change matters).</summary>
        public long Activity;

        /// <summary>
        /// Set (by <see cref="Retire"/>) when the thread moved to another allocator or died; the allocator then forgets
        /// this cache.
        /// </summary>
        public volatile bool Retired;

        /// <summary>The cache's <see cref="Activity"/> when the idle timer last looked (under the slab lock).</summary>
        public long ActivitySeen;

        /// <summary>The idle timer's ticks without activity of this cache (under the slab lock).</summary>
        public int QuietTicks;

        /// <summary>
        /// Bytes of the blocks cached: counted in use by their slabs, so subtracted from the allocator's bytes in use.
        /// Written by whoever holds the cache (its thread in an operation, or a trim after the handshake); read racily.
        /// </summary>
        public long CachedBytes;

        /// <summary>1 while the owning thread is in an operation on the cache.</summary>
        private int _busy;

        /// <summary>1 while a trim holds the cache (or is about to): the owning thread then leaves it alone.</summary>
        private int _revoked;

        /// <summary>
        /// The group tracking this thread's new buffers of this allocator (see <see cref="OwnerGroup"/>), held strongly
        /// while it is being filled. Held weakly, a group whose buffers were all disposed (after every batch of a read of
        /// small batches) died at the next collection and was queued for finalization, so the finalizer thread woke up
        /// after every gen-0 collection and took a core from the reader (docs/performance-notes.md). Held strongly,
        /// undisposed buffers of the group being filled come back once the group is full (64 allocations later) and
        /// unreachable, or after a trim lets it go (<see cref="DropGroup"/>); the others come back through their group's
        /// finalizer.
        /// </summary>
        private OwnerGroup? _group;

        /// <summary>Tracks a new owner allocated through this cache. Only the owning thread calls this.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Track(SlabMemoryOwner owner)
        {
            // Read once: a trim may drop the group meanwhile, and the owner then joins the group it was read as.
            OwnerGroup? group = Volatile.Read(ref _group);
            if (group is null || !group.TryAdd(owner))
                TrackInNewGroup(owner);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void TrackInNewGroup(SlabMemoryOwner owner)
        {
            var group = new OwnerGroup();
            group.TryAdd(owner);
            Volatile.Write(ref _group, group);
        }

        /// <summary>
        /// Lets go of the group being filled, so that the buffers in it that are dropped undisposed come back once they
        /// are unreachable. Any thread may call this: the owning thread's next allocation starts a new group.
        /// </summary>
        public void DropGroup() => Volatile.Write(ref _group, null);

        /// <summary>
        /// Keeps the block of a disposed buffer (still counted in use by its slab) if the class has room and no trim
        /// holds the cache. Only the owning thread calls this.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool TryPush(in FreeBlock block, int classIndex, long size)
        {
            if (!TryEnter())
                return false;
            int count = _counts[classIndex];
            bool kept = count < Capacity && CachedBytes + size <= MaxBytes;
            if (kept)
            {
                Debug.Assert(_blocks[classIndex * Capacity + count].Slab is null, "a cache slot above the count is empty");
                _blocks[classIndex * Capacity + count] = block;
                _counts[classIndex] = (byte)(count + 1);
                CachedBytes += size;
                Activity++;
            }
            Exit();
            return kept;
        }

        /// <summary>
        /// Takes the most recently cached block of the class, already counted in use by its slab (as
        /// <paramref name="size"/> bytes, its class's size), unless no block is cached or a trim holds the cache. Only
        /// the owning thread calls this.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool TryPop(int classIndex, long size, out FreeBlock block)
        {
            if (!TryEnter())
            {
                block = default;
                return false;
            }
            int count = _counts[classIndex];
            bool taken = count > 0;
            if (taken)
            {
                int slot = classIndex * Capacity + count - 1;
                block = _blocks[slot];
                _blocks[slot] = default;
                _counts[classIndex] = (byte)(count - 1);
                CachedBytes -= size;
                Debug.Assert(CachedBytes >= 0, "the cache counts only the bytes of the blocks it holds");
                Activity++;
            }
            else
            {
                block = default;
            }
            Exit();
            return taken;
        }

        /// <summary>
        /// Hands every cached block to the allocator's shared free lists, counting it free on its slab, and empties the
        /// cache. Only under the allocator's slab lock, by the owning thread (outside an operation) or by a trim that
        /// holds the cache (<see cref="Revoke"/> and <see cref="WaitUntilIdle"/>), or for a thread that has died.
        /// </summary>
        public void FlushTo(SlabMemoryAllocator allocator)
        {
            for (int classIndex = 0; classIndex <= MaxClass; classIndex++)
            {
                int first = classIndex * Capacity;
                long size = SizeClasses.SizeOf(classIndex);
                // One block at a time, the cache left consistent after each: listing it can fail for memory (a new
                // free list), and then every block is still either cached or listed, never lost or listed twice.
                for (int count = _counts[classIndex]; count > 0; count--)
                {
                    FreeBlock block = _blocks[first + count - 1];
                    // Listed before it is counted free, as every returned block is.
                    allocator.PushShared(block, classIndex);
                    _blocks[first + count - 1] = default;
                    _counts[classIndex] = (byte)(count - 1);
                    Volatile.Write(ref CachedBytes, CachedBytes - size);
                    block.Slab.Release(size);
                }
            }
        }

        /// <summary>
        /// Makes the cache inert for good: its thread moved to another allocator or died, and the allocator forgets it.
        /// Should the thread still reach it (a failure while binding its next cache), every operation finds it revoked
        /// and goes to the shared lists. Under the allocator's slab lock, after <see cref="FlushTo"/>.
        /// </summary>
        public void Retire()
        {
            Volatile.Write(ref _revoked, 1);
            Retired = true;
            DropGroup();
        }

        /// <summary>
        /// Starts an operation of the owning thread on the cache; <see langword="false"/> (and no operation) while a
        /// trim holds it. Every <see langword="true"/> is followed by <see cref="Exit"/>, with nothing between that can
        /// throw, block or take a lock.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private bool TryEnter()
        {
#if NET
            // A plain store, then a load: a store-load reordering by the processor is undone by the trim's
            // process-wide barrier (see the remarks), so no fence is needed here. The JIT keeps a volatile store before
            // a later volatile load (the ECMA model would let it swap them; RyuJIT does not); ARM64 may reorder them
            // in hardware (stlur/ldapr) as x64 does, which the barrier covers the same way.
            Volatile.Write(ref _busy, 1);
#else
            Interlocked.Exchange(ref _busy, 1);
#endif
            if (Volatile.Read(ref _revoked) == 0)
                return true;
            Volatile.Write(ref _busy, 0);
            return false;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private void Exit() => Volatile.Write(ref _busy, 0);

        /// <summary>
        /// A trim's first step: once <see cref="BarrierAfterRevoke"/> has run, the owning thread starts no operation on
        /// the cache.
        /// </summary>
        public void Revoke() => Volatile.Write(ref _revoked, 1);

        /// <summary>
        /// A trim's second step, after <see cref="Revoke"/> and one process-wide barrier: waits for an operation the
        /// owning thread started before it saw the revocation (a few instructions, unless the thread was preempted in
        /// them). The cache is the trim's from then until <see cref="Restore"/>. A thread that died mid-operation (on
        /// .NET Framework an abort can land anywhere) is not waited for: nothing can touch the cache any more.
        /// </summary>
        public void WaitUntilIdle()
        {
            var spinner = default(SpinWait);
            while (Volatile.Read(ref _busy) != 0 && Thread.IsAlive)
                spinner.SpinOnce();
        }

        /// <summary>Gives the cache back to its thread, with what the trim wrote to it visible first.</summary>
        public void Restore() => Volatile.Write(ref _revoked, 0);

        /// <summary>The barrier between <see cref="Revoke"/> and <see cref="WaitUntilIdle"/>.</summary>
        public static void BarrierAfterRevoke()
        {
#if NET
            Interlocked.MemoryBarrierProcessWide();
#else
            Interlocked.MemoryBarrier();
#endif
        }

        /// <summary>Blocks cached, for tests.</summary>
        internal int CountCached()
        {
            int total = 0;
            foreach (byte count in _counts)
                total += count;
            return total;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static bool IsCached(int classIndex) => classIndex <= MaxClass;
    }
}
