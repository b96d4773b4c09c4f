using System;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// A piece of native memory carved into blocks. A shared slab (4 MiB) is carved from the start, block after
    /// block of any class up to 256 KiB, by a bump offset; a dedicated slab holds exactly one larger block.
    /// </summary>
    /// <remarks>
    /// <para>
    /// The slab's state packs a generation (high 32 bits) and the bytes of its blocks in use, in units of 64 (low 32
    /// bits), into one long, so that taking a free block and retiring the whole slab are decided by one
    /// compare-and-swap each, and the same atomic operation that takes or returns a block also does the accounting:
    /// </para>
    /// <list type="bullet">
    /// <item>A free block remembers the generation it was freed under. Taking it from a free list succeeds only while
    /// the slab is still in that generation, and counts it in use in the same step.</item>
    /// <item>Retiring (to give the slab back to the OS, or to carve it anew) succeeds only when nothing is in use, and
    /// moves the slab to the next generation in the same step. Every free block the free lists still hold for it
    /// becomes stale at once, and whoever pops one later drops it without touching its memory.</item>
    /// </list>
    /// <para>
    /// So a region is never handed to two owners: an owner holds its block from a successful take (or a carve) until
    /// its dispose puts the block back, and while any block is out the slab cannot be retired. The free lists never
    /// have to be searched to retire a slab.
    /// </para>
    /// </remarks>
    internal sealed class Slab : IDisposable
    {
        private const long OneGeneration = 1L << 32;

        /// <summary>
        /// The in-use part of the state. A block is at most 2^31 bytes, 2^25 units, so even a block counted twice for a
        /// moment (a thread takes it from the free list before its returner has counted it back) cannot carry into the
        /// generation.
        /// </summary>
        private const long UnitsMask = 0xFFFF_FFFF;

        private readonly NativeSlabMemory _memory;
        private long _state;

        public Slab(SlabMemoryAllocator allocator, long size, int dedicatedClass)
        {
            Allocator = allocator;
            _memory = new NativeSlabMemory(size);
            Size = size;
            DedicatedClass = dedicatedClass;
            Address = _memory.Address;
            CleanFrom = _memory.IsZeroed ? 0 : size;
        }

        /// <summary>The allocator the slab belongs to, which takes its blocks back.</summary>
        public SlabMemoryAllocator Allocator { get; }

        /// <summary>First byte of the slab, 64-byte aligned.</summary>
        public nint Address { get; }

        /// <summary>Usable bytes.</summary>
        public long Size { get; }

        /// <summary>The size class of a dedicated slab's only block; -1 for a shared slab.</summary>
        public int DedicatedClass { get; }

        public bool IsShared => DedicatedClass < 0;

        /// <summary>Offset of the next block a shared slab carves. Guarded by the allocator's slab lock.</summary>
        public long BumpOffset { get; set; }

        /// <summary>
        /// Bytes from here to the end have never been handed out since the memory came zeroed from the OS, so a block
        /// carved there needs no clearing. Guarded by the allocator's slab lock.
        /// </summary>
        public long CleanFrom { get; set; }

        public int Generation => (int)(Volatile.Read(ref _state) >> 32);

        /// <summary>Bytes of the blocks in use.</summary>
        public long BytesInUse => (Volatile.Read(ref _state) & UnitsMask) * SizeClasses.Alignment;

        public bool IsFree => (Volatile.Read(ref _state) & UnitsMask) == 0;

        /// <summary>
        /// Counts a block of <paramref name="size"/> bytes taken from a free list in use, if the slab is still in
        /// <paramref name="generation"/>.
        /// </summary>
        public bool TryAcquire(int generation, long size)
        {
            long units = size / SizeClasses.Alignment;
            long state = Volatile.Read(ref _state);
            while ((int)(state >> 32) == generation)
            {
                long seen = Interlocked.CompareExchange(ref _state, state + units, state);
                if (seen == state)
                    return true;
                state = seen;
            }
            return false;
        }

        /// <summary>Counts a newly carved block in use. Only under the slab lock, so the generation cannot move meanwhile.</summary>
        public void AcquireCarved(long size) => Interlocked.Add(ref _state, size / SizeClasses.Alignment);

        /// <summary>Counts a block back; returns whether nothing of the slab is in use any more.</summary>
        public bool Release(long size) => (Interlocked.Add(ref _state, -(size / SizeClasses.Alignment)) & UnitsMask) == 0;

        /// <summary>Moves to the next generation if no block is in use. Only under the slab lock.</summary>
        public bool TryRetire()
        {
            long state = Volatile.Read(ref _state);
            return (state & UnitsMask) == 0 && Interlocked.CompareExchange(ref _state, unchecked(state + OneGeneration), state) == state;
        }

        /// <summary>Gives the memory back to the OS. Only after a successful <see cref="TryRetire"/>.</summary>
        public void Dispose() => _memory.Dispose();
    }
}
