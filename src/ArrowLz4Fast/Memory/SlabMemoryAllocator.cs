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
    public sealed partial class SlabMemoryAllocator : MemoryAllocator
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

        /// <summary>
        /// Bytes of the blocks currently held by undisposed buffers: a request rounded up to its size class, or the
        /// larger free block (up to twice that) a large request whose class had none was given.
        /// </summary>
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
                // IpcDecompressingStream announced on this thread that it will read a message body whole into the
                // buffer Arrow's reader allocates next: that buffer's zeroing is left to its read (WholeWriteHandoff).
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

        private const int QuietTicksToTrim = 4;
    }
}
