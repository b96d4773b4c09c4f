using System;
using System.Buffers;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// An Arrow <see cref="MemoryAllocator"/> that keeps the native memory of disposed buffers and hands it out again,
    /// so a reader that disposes its batches reads the next ones without taking memory from the OS, zero-filling fresh
    /// pages or reporting GC memory pressure per buffer, as Arrow's default allocator does.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Memory is native, 64-byte aligned, taken from the OS in slabs and carved into blocks of 96 size classes (every
    /// multiple of 64 bytes up to 256, then four classes per power of two, so rounding wastes less than a quarter of a
    /// request). Blocks of up to 256 KiB are carved from shared 4 MiB slabs; a larger block is a slab of its own. GC
    /// memory pressure is reported per slab. Disposed buffers go to per-class free lists, striped by core, and are
    /// reused most recently freed first; a thread that allocates also keeps a few free blocks of each class up to
    /// 64 KiB to itself (up to 1 MiB in all, and only while the allocator retains no more than the cap), reused without
    /// a lock or an atomic operation, and taken back by trims.
    /// </para>
    /// <para>
    /// Retained memory grows to what is in use at the busiest moment. Free memory beyond
    /// <see cref="SlabMemoryAllocatorOptions.MaxIdleBytes"/> goes back to the OS as soon as a slab has no buffer in use
    /// (over the cap threads cache nothing, so that every returned block is seen); all of it goes back after <see cref="SlabMemoryAllocatorOptions.IdleTrimDelay"/> without activity, or on
    /// <see cref="Trim"/>.
    /// </para>
    /// <para>
    /// Safe to share between threads and readers. Buffers are zeroed like Arrow's (unless
    /// <see cref="SlabMemoryAllocatorOptions.ClearBuffers"/> is off); no memory is handed to two live buffers; disposing
    /// twice is harmless; the memory of a buffer that is never disposed comes back through a finalizer.
    /// </para>
    /// </remarks>
    /// <example>
    /// <code>
    /// using var reader = new ArrowStreamReader(stream, SlabMemoryAllocator.Shared, new Lz4FastCodecFactory());
    /// </code>
    /// </example>
    public sealed class SlabMemoryAllocator : MemoryAllocator
    {
        /// <summary>Size of a shared slab.</summary>
        internal const long SharedSlabSize = 4L << 20;

        /// <summary>Blocks up to this size come from shared slabs; larger ones get a slab of their own.</summary>
        internal const int MaxSharedBlockSize = 256 << 10;

        /// <summary>The largest size class carved from shared slabs.</summary>
        internal static readonly int MaxSharedClass = SizeClasses.IndexOf(MaxSharedBlockSize);

        /// <summary>
        /// A large request with its own class empty takes the smallest free block up to this many classes larger (up to
        /// twice its size) before a new slab is made: reusing resident memory beats fresh pages from the OS, and batches
        /// of varying sizes then share blocks instead of each size retaining its own.
        /// </summary>
        private const int LargerClassesToTry = 4;

        private readonly long _maxIdleBytes;
        private readonly int _idleTrimDelayMs;
        private readonly bool _clearBuffers;

        /// <summary>Whether threads keep free blocks in caches: not with a cap of 0, which keeps nothing not in use.</summary>
        private readonly bool _useCaches;
        private readonly int _stripeMask;

        /// <summary>Free lists by [size class * stripes + stripe], made when first needed.</summary>
        private readonly FreeStack?[] _stacks;

        /// <summary>
        /// Allocations and returns, counted per stripe (racily: only whether they move matters), for the idle timer to
        /// see activity without the hot path reading a clock.
        /// </summary>
        private readonly PaddedCounter[] _activity;

        /// <summary>
        /// The threads' caches of this allocator's blocks, for the idle timer to see their activity and for trims to take
        /// their blocks back. Under the slab lock.
        /// </summary>
        private readonly List<ThreadCache> _caches = new();

        /// <summary>A copy of <see cref="_caches"/>, replaced when it changes, to count their blocks without the lock.</summary>
        private ThreadCache[] _cacheSnapshot = System.Array.Empty<ThreadCache>();

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

        /// <summary>Guards the slab list, the shared slab being carved, retiring and the idle timer.</summary>
        private readonly object _slabLock = new();
        private readonly List<Slab> _slabs = new();

        /// <summary>A copy of <see cref="_slabs"/>, replaced when it changes, to sum the bytes in use without the lock.</summary>
        private Slab[] _slabSnapshot = System.Array.Empty<Slab>();
        private Slab? _current;
        private long _retained;
        private Timer? _idleTimer;
        private bool _idleTimerArmed;
        private long _activitySeen;
        private int _quietTicks;

        /// <summary>An allocator with the default options.</summary>
        public SlabMemoryAllocator()
            : this(null)
        {
        }

        /// <summary>An allocator with the given options.</summary>
        /// <param name="options">Settings, copied now; <see langword="null"/> for the defaults.</param>
        public SlabMemoryAllocator(SlabMemoryAllocatorOptions? options)
            : base(SizeClasses.Alignment)
        {
            options ??= new SlabMemoryAllocatorOptions();
            _maxIdleBytes = options.MaxIdleBytes;
            _idleTrimDelayMs = options.IdleTrimDelay == Timeout.InfiniteTimeSpan ? -1 : (int)Math.Ceiling(options.IdleTrimDelay.TotalMilliseconds);
            _clearBuffers = options.ClearBuffers;
            _useCaches = _maxIdleBytes > 0;

            int stripes = 1;
            while (stripes < Math.Min(Environment.ProcessorCount, 8))
                stripes <<= 1;
            _stripeMask = stripes - 1;
            _stacks = new FreeStack?[SizeClasses.Count * stripes];
            _activity = new PaddedCounter[stripes];
            SlabAllocatorRegistry.Register(this);
        }

        /// <summary>
        /// One allocator with the default options for the whole process: what readers and writers should share unless
        /// they need different options. Its memory is retained while in use and for
        /// <see cref="SlabMemoryAllocatorOptions.DefaultIdleTrimDelay"/> after.
        /// </summary>
        public static SlabMemoryAllocator Shared { get; } = new();

        /// <summary>Bytes of the blocks currently held by undisposed buffers (requests rounded up to their size class).</summary>
        public long BytesInUse
        {
            get
            {
                // Threads' caches keep their blocks counted in use by the slabs; they are not in use by a buffer. (Read
                // while other threads allocate, the sum is a moment's approximation, never below zero.)
                return Math.Max(0, SlabBytesInUse - CachedBytesOfAllCaches());
            }
        }

        /// <summary>
        /// Bytes of the blocks the slabs count in use: held by buffers or kept in threads' caches, so not free to give
        /// back to the OS before a trim takes the caches' blocks back.
        /// </summary>
        private long SlabBytesInUse
        {
            get
            {
                // Each slab counts its own blocks in the same atomic operation that takes or returns one.
                long total = 0;
                foreach (Slab slab in Volatile.Read(ref _slabSnapshot))
                    total += slab.BytesInUse;
                return total;
            }
        }

        /// <summary>Bytes of all slabs held from the OS: the blocks in use, free blocks and not yet carved space.</summary>
        public long BytesRetained => Volatile.Read(ref _retained);

        /// <summary>Number of slabs held from the OS.</summary>
        public int SlabCount => Volatile.Read(ref _slabSnapshot).Length;

        /// <summary>The retention cap in effect (<see cref="SlabMemoryAllocatorOptions.MaxIdleBytes"/>).</summary>
        public long MaxIdleBytes => _maxIdleBytes;

        /// <summary>
        /// Gives every slab that has no buffer in use back to the OS now, e.g. after a large read when the process will
        /// not read again soon. Buffers still in use keep their slabs.
        /// </summary>
        /// <returns>Bytes given back.</returns>
        public long Trim()
        {
            lock (_slabLock)
            {
                ReclaimCachedBlocks();
                return ReleaseFreeSlabs(0, ArrowLz4FastMetrics.TrimExplicit);
            }
        }

        /// <inheritdoc />
        protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
        {
            int classIndex = SizeClasses.IndexOf(length);
            int blockClass = classIndex;
            long blockSize = SizeClasses.SizeOf(classIndex);
            FreeBlock block;
            ThreadCache? cache = ThreadCache.IsCached(classIndex) && _useCaches ? CacheForAllocation() : null;
            if (cache is null || !cache.TryPop(classIndex, blockSize, out block))
            {
                block = TakeShared(classIndex, out blockClass);
                blockSize = SizeClasses.SizeOf(blockClass);
            }
            // Only the prefix an earlier owner may have written needs zeroing: past it the block is still zero. The
            // owner zeroes it when the memory is first reached, unless a writer that overwrites it all says not to.
            int clearLength = _clearBuffers ? Math.Min(block.Dirty, length) : 0;

            bytesAllocated = (int)Math.Min(blockSize, int.MaxValue);
            SlabMemoryOwner? owner = null;
            try
            {
                owner = new SlabMemoryOwner(block, blockClass, length, clearLength);
                if (cache is not null)
                    cache.Track(owner);
                else
                    OwnerGroup.Track(owner);
                WholeWriteHandoff.Offer(owner, length);
                return owner;
            }
            catch
            {
                // Out of memory for the owner or its group: the block goes back, once, whoever holds it.
                if (owner is null)
                    Return(block, blockClass);
                else
                    owner.ReturnUndisposed();
                throw;
            }
        }

        /// <summary>
        /// A block of the class (or, for a large class, up to <see cref="LargerClassesToTry"/> classes larger: its
        /// class is <paramref name="blockClass"/>) from the shared free lists, carved or from a new slab; counted in use.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private FreeBlock TakeShared(int classIndex, out int blockClass)
        {
            blockClass = classIndex;
            int stripe = CurrentStripe();
            _activity[stripe].Value++;
            if (TryTake(classIndex, stripe, out FreeBlock block))
                return block;
            if (classIndex <= MaxSharedClass)
                return Carve(classIndex);
            if (TryTakeLarger(classIndex, stripe, out block, out blockClass))
                return block;
            return CreateDedicated(classIndex);
        }

        /// <summary>Takes back a block from a disposed (or finalized) owner.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void Return(in FreeBlock block, int classIndex)
        {
            // This thread's cache keeps the block as it is, counted in use by its slab: no atomic operation. (Inlined
            // into the owner's Dispose, so that the common path makes no call whatever the JIT's profile says.)
            // Over the cap, blocks go to the shared lists, where the cap applies exactly (see AddSlab).
            if (ThreadCache.IsCached(classIndex) && Volatile.Read(ref _retained) <= _maxIdleBytes)
            {
                ThreadCache? cache = CurrentCache();
                if (cache is not null && cache.TryPush(block, classIndex, SizeClasses.SizeOf(classIndex)))
                    return;
            }
            ReturnShared(block, classIndex);
        }

        /// <summary>Lists a returned block on the shared free lists and counts it free on its slab.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private void ReturnShared(in FreeBlock block, int classIndex)
        {
            // Listed before it is counted free: once nothing of the slab is in use, every free block of it is where an
            // allocation can find it.
            long size = SizeClasses.SizeOf(classIndex);
            int stripe = CurrentStripe();
            StackFor(classIndex, stripe).Push(block);
            _activity[stripe].Value++;
            if (block.Slab.Release(size) && BytesRetained - SlabBytesInUse > _maxIdleBytes)
                EnforceIdleLimit();
        }

        /// <summary>Lists a free block on the shared free lists of this core's stripe; the caller then counts it free.</summary>
        internal void PushShared(in FreeBlock block, int classIndex) => StackFor(classIndex, CurrentStripe()).Push(block);

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

        /// <summary>Sum of the slab sizes, for tests to check <see cref="BytesRetained"/> against.</summary>
        internal long SumOfSlabSizes()
        {
            lock (_slabLock)
            {
                long total = 0;
                foreach (Slab slab in _slabs)
                    total += slab.Size;
                return total;
            }
        }

        private int CurrentStripe() =>
#if NET
            Thread.GetCurrentProcessorId() & _stripeMask;
#else
            Environment.CurrentManagedThreadId & _stripeMask;
#endif

        /// <summary>Pops a free block of the class: from this core's stripe first, then from the others.</summary>
        private bool TryTake(int classIndex, int stripe, out FreeBlock block)
        {
            int first = classIndex * (_stripeMask + 1);
            long size = SizeClasses.SizeOf(classIndex);
            for (int i = 0; i <= _stripeMask; i++)
            {
                FreeStack? stack = Volatile.Read(ref _stacks[first + ((stripe + i) & _stripeMask)]);
                if (stack is not null && stack.Count > 0 && stack.TryPop(size, out block))
                    return true;
            }
            block = default;
            return false;
        }

        private bool TryTakeLarger(int classIndex, int stripe, out FreeBlock block, out int blockClass)
        {
            int last = Math.Min(classIndex + LargerClassesToTry, SizeClasses.Count - 1);
            for (blockClass = classIndex + 1; blockClass <= last; blockClass++)
            {
                if (TryTake(blockClass, stripe, out block))
                    return true;
            }
            block = default;
            blockClass = classIndex;
            return false;
        }

        private FreeStack StackFor(int classIndex, int stripe)
        {
            int index = classIndex * (_stripeMask + 1) + stripe;
            FreeStack? stack = Volatile.Read(ref _stacks[index]);
            if (stack is not null)
                return stack;
            Interlocked.CompareExchange(ref _stacks[index], new FreeStack(), null);
            return _stacks[index]!;
        }

        /// <summary>Carves a new small block from the shared slab being carved, starting another when it is full.</summary>
        private FreeBlock Carve(int classIndex)
        {
            long size = SizeClasses.SizeOf(classIndex);
            lock (_slabLock)
            {
                Slab? slab = _current;
                if (slab is null || slab.BumpOffset + size > slab.Size)
                {
                    // A shared slab whose blocks are all free is carved anew before another is taken from the OS: its
                    // free blocks are of classes no longer asked for, or they would not all be free now.
                    slab = RecycleFreeSharedSlab() ?? AddSlab(new Slab(this, SharedSlabSize, dedicatedClass: -1));
                    _current = slab;
                }

                long offset = slab.BumpOffset;
                slab.BumpOffset = offset + size;
                long dirty = Math.Min(size, Math.Max(0, slab.CleanFrom - offset));
                slab.CleanFrom = Math.Max(slab.CleanFrom, offset + size);
                slab.AcquireCarved(size);
                return new FreeBlock(slab, slab.Address + (nint)offset, slab.Generation, ClampToInt(dirty));
            }
        }

        private Slab? RecycleFreeSharedSlab()
        {
            foreach (Slab slab in _slabs)
            {
                if (slab.IsShared && slab.IsFree && slab.TryRetire())
                {
                    slab.BumpOffset = 0;
                    RemoveStaleBlocks();
                    return slab;
                }
            }
            return null;
        }

        /// <summary>A block larger than shared slabs take: a slab of its own, taken outside the lock.</summary>
        private FreeBlock CreateDedicated(int classIndex)
        {
            var slab = new Slab(this, SizeClasses.SizeOf(classIndex), classIndex);
            slab.AcquireCarved(slab.Size);
            lock (_slabLock)
                AddSlab(slab);
            return new FreeBlock(slab, slab.Address, slab.Generation, ClampToInt(slab.CleanFrom));
        }

        private Slab AddSlab(Slab slab)
        {
            _slabs.Add(slab);
            Volatile.Write(ref _slabSnapshot, _slabs.ToArray());
            bool crossesCap = _retained <= _maxIdleBytes && _retained + slab.Size > _maxIdleBytes;
            Volatile.Write(ref _retained, _retained + slab.Size);
            // Over the cap, returned blocks stay out of threads' caches (Return), and what the caches hold now goes back
            // to the shared lists: a cached block counts in use, so it would keep its slab from going back when its other
            // blocks are free, and no return would see the free memory over the cap. One handshake per crossing.
            if (crossesCap)
                ReclaimCachedBlocks();
            ArmIdleTimer();
            return slab;
        }

        private void EnforceIdleLimit()
        {
            lock (_slabLock)
            {
                ReleaseFreeSlabs(_maxIdleBytes, ArrowLz4FastMetrics.TrimLimit);
                // Still over the cap: blocks in threads' caches (counted in use) may be what keeps slabs partly used.
                if (_retained - SlabBytesInUse > _maxIdleBytes && CachedBytesOfAllCaches() > 0)
                {
                    ReclaimCachedBlocks();
                    ReleaseFreeSlabs(_maxIdleBytes, ArrowLz4FastMetrics.TrimLimit);
                }
            }
        }

        /// <summary>Bytes of the blocks in threads' caches (read racily; tests read it too).</summary>
        internal long CachedBytesOfAllCaches()
        {
            long total = 0;
            foreach (ThreadCache cache in Volatile.Read(ref _cacheSnapshot))
                total += Volatile.Read(ref cache.CachedBytes);
            return total;
        }

        /// <summary>
        /// Gives slabs with no block in use back to the OS until at most <paramref name="keepIdle"/> free bytes remain.
        /// The shared slab being carved goes last. Under the slab lock.
        /// </summary>
        private long ReleaseFreeSlabs(long keepIdle, string reason)
        {
            long released = 0;
            long inUse = SlabBytesInUse; // slabs given back had nothing in use, so this stays right through the loop
            for (int pass = 0; pass < 2; pass++)
            {
                for (int i = _slabs.Count - 1; i >= 0 && _retained - inUse > keepIdle; i--)
                {
                    Slab slab = _slabs[i];
                    if ((pass == 0 && slab == _current) || !slab.TryRetire())
                        continue;
                    if (slab == _current)
                        _current = null;
                    _slabs[i] = _slabs[_slabs.Count - 1];
                    _slabs.RemoveAt(_slabs.Count - 1);
                    Volatile.Write(ref _retained, _retained - slab.Size);
                    released += slab.Size;
                    slab.Dispose();
                }
            }
            if (released > 0)
            {
                Volatile.Write(ref _slabSnapshot, _slabs.ToArray());
                RemoveStaleBlocks();
                ArrowLz4FastMetrics.RecordTrim(reason);
            }
            return released;
        }

        /// <summary>Drops free-list entries of retired slabs, so the lists hold only blocks that can be taken.</summary>
        private void RemoveStaleBlocks()
        {
            foreach (FreeStack? stack in _stacks)
            {
                if (stack is not null && stack.Count > 0)
                    stack.RemoveStale();
            }
        }

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

        private const int QuietTicksToTrim = 4;

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

        private static int ClampToInt(long value) => (int)Math.Min(value, int.MaxValue);
    }
}
