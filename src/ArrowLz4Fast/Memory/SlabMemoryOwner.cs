using System;
using System.Buffers;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// One buffer handed to Arrow: a block of a slab, exposed as exactly the requested length. Disposing it returns
    /// the block to the allocator's free list; an owner that is never disposed returns it from its finalizer, so a
    /// forgotten batch costs a GC cycle, not a leak. Owners are not pooled: a disposed owner stays disposed, so a stale
    /// reference to it can never reach memory that has since been handed to someone else.
    /// </summary>
    internal sealed unsafe class SlabMemoryOwner : MemoryManager<byte>
    {
        private readonly SlabMemoryAllocator _allocator;
        private readonly nint _address;
        private readonly int _length;
        private readonly int _classIndex;
        private readonly int _generation;
        private readonly int _dirty;
        private Slab? _slab;
        private int _pins;

        public SlabMemoryOwner(SlabMemoryAllocator allocator, in FreeBlock block, int classIndex, int length)
        {
            _allocator = allocator;
            _slab = block.Slab;
            _address = block.Address;
            _generation = block.Generation;
            _classIndex = classIndex;
            _length = length;
            // What this owner may write joins what earlier owners may have left.
            _dirty = Math.Max(block.Dirty, length);
        }

        // The finalizer only updates managed bookkeeping (see Dispose); it never touches the native memory.
#pragma warning disable CA2015 // a finalizer on a MemoryManager is what returns an undisposed buffer, as Arrow's own NativeMemoryManager does
        ~SlabMemoryOwner()
        {
            Dispose(false);
        }
#pragma warning restore CA2015

        public override Span<byte> GetSpan()
        {
            if (_slab is null)
                ThrowDisposed();
            return new Span<byte>((void*)_address, _length);
        }

        public override MemoryHandle Pin(int elementIndex = 0)
        {
            if ((uint)elementIndex > (uint)_length)
                throw new ArgumentOutOfRangeException(nameof(elementIndex));
            if (_slab is null)
                ThrowDisposed();
            // Native memory never moves: pinning only counts, so that Dispose can refuse to free pinned memory.
            Interlocked.Increment(ref _pins);
            return new MemoryHandle((byte*)_address + elementIndex, default, this);
        }

        public override void Unpin() => Interlocked.Decrement(ref _pins);

        protected override void Dispose(bool disposing)
        {
            // Like Arrow's NativeMemoryManager: memory someone still holds a pointer to is not freed. From the
            // finalizer there can be no MemoryHandle left (it references this owner), so the block is returned.
            if (disposing && Volatile.Read(ref _pins) > 0)
                throw new InvalidOperationException("Cannot free memory while it is pinned.");
            // Exactly one caller gets the slab: disposing twice, or disposing while the finalizer runs, returns once.
            Slab? slab = Interlocked.Exchange(ref _slab, null);
            if (slab is not null)
                _allocator.Return(new FreeBlock(slab, _address, _generation, _dirty), _classIndex);
        }

        private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(SlabMemoryOwner));
    }
}
