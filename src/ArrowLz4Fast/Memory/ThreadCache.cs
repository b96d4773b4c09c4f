using System;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// The free small blocks one thread keeps for one allocator: a few per size class, taken and given back without a
    /// lock. A read of small batches allocates and disposes thousands of buffers of a few hundred bytes, one thread at
    /// a time; on the shared free lists each of them costs a spin lock to push and another to pop, and on this kind of
    /// machine every atomic instruction is 6–7 ns, about as much as the rest of reusing a block. Only the thread the
    /// cache belongs to ever touches its blocks.
    /// </summary>
    /// <remarks>
    /// A cached block is accounted exactly like a block on a shared free list: its slab counts it free, and it remembers
    /// the generation it was freed under. So a cache never keeps a slab from being trimmed or carved anew: taking a
    /// block checks the generation in the same compare-and-swap that counts it in use, and a block of a slab retired
    /// meanwhile is dropped without its memory being touched. A thread that dies loses its cached blocks for reuse, not
    /// its memory: their slabs count them free and go back to the OS as usual.
    /// </remarks>
    internal sealed class ThreadCache
    {
        /// <summary>Blocks kept per size class.</summary>
        public const int Capacity = 16;

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

        /// <summary>Set when the thread moved to another allocator; the allocator then forgets this cache.</summary>
        public volatile bool Retired;

        /// <summary>
        /// The group tracking this thread's new buffers of this allocator (see <see cref="OwnerGroup"/>), kept here so
        /// that an allocation reads one thread-static instead of two: on Linux each costs a call into the runtime's
        /// thread-local storage lookup.
        /// </summary>
        private WeakReference<OwnerGroup>? _group;

        /// <summary>Tracks a new owner allocated through this cache. Only the owning thread calls this.</summary>
        public void Track(SlabMemoryOwner owner) => OwnerGroup.Track(ref _group, owner);

        /// <summary>Keeps <paramref name="block"/> if the class has room. Only the owning thread calls this.</summary>
        public bool TryPush(in FreeBlock block, int classIndex)
        {
            int count = _counts[classIndex];
            if (count == Capacity)
                return false;
            _blocks[classIndex * Capacity + count] = block;
            _counts[classIndex] = (byte)(count + 1);
            return true;
        }

        /// <summary>
        /// Takes the most recently cached block of the class that is still valid, counting it in use (as
        /// <paramref name="size"/> bytes); stale blocks of retired slabs are dropped on the way. Only the owning thread
        /// calls this.
        /// </summary>
        public bool TryPop(int classIndex, long size, out FreeBlock block)
        {
            int count = _counts[classIndex];
            int first = classIndex * Capacity;
            while (count > 0)
            {
                count--;
                block = _blocks[first + count];
                _blocks[first + count] = default;
                if (block.Slab.TryAcquire(block.Generation, size))
                {
                    _counts[classIndex] = (byte)count;
                    return true;
                }
            }
            _counts[classIndex] = 0;
            block = default;
            return false;
        }

        /// <summary>Hands every cached block to the allocator's shared free lists and empties the cache.</summary>
        public void FlushTo(SlabMemoryAllocator allocator)
        {
            for (int classIndex = 0; classIndex <= MaxClass; classIndex++)
            {
                int first = classIndex * Capacity;
                for (int i = 0; i < _counts[classIndex]; i++)
                {
                    allocator.PushShared(_blocks[first + i], classIndex);
                    _blocks[first + i] = default;
                }
                _counts[classIndex] = 0;
            }
        }

        /// <summary>Blocks cached, for tests.</summary>
        internal int CountCached()
        {
            int total = 0;
            foreach (byte count in _counts)
                total += count;
            return total;
        }

        internal static bool IsCached(int classIndex) => classIndex <= MaxClass;
    }
}
