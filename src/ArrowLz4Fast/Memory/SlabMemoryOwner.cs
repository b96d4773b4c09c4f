using System;
using System.Buffers;
using System.Runtime.InteropServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// One buffer handed to Arrow: a block of a slab, exposed as exactly the requested length. Disposing it returns
    /// the block to the allocator's free list; an owner that is never disposed returns it through the finalizer of its
    /// <see cref="OwnerGroup"/>, so a forgotten batch costs a GC cycle (and, for the last small buffers a thread
    /// allocated, its next allocations or a trim), not a leak. Owners are not pooled: a disposed
    /// owner stays disposed, so a stale reference to it can never reach memory since handed to someone else.
    /// </summary>
    /// <remarks>
    /// A reused block of more than <see cref="EagerClearLimit"/> bytes is zeroed lazily: on the first <see cref="GetSpan"/> or <see cref="Pin"/>, the only ways to reach
    /// the memory, so nobody ever sees an earlier buffer's bytes, and the clearing happens just before the memory is
    /// written, while it comes into cache anyway. A writer that overwrites the whole buffer before anyone reads it
    /// (ArrowLz4Fast's codec decoding into it) cancels the clearing with <see cref="TrySkipClear(Memory{byte}, out bool)"/>.
    /// Smaller blocks are zeroed when handed out.
    /// </remarks>
    internal sealed unsafe class SlabMemoryOwner : MemoryManager<byte>
    {
        // _clearState: the memory is zeroed or needs no zeroing / zeroing is due at first reach / a thread is zeroing it.
        private const int Clean = 0;
        private const int ClearPending = 1;
        private const int Clearing = 2;
        // Zeroing is owed by a writer that announced it will overwrite the whole buffer (WholeWriteHandoff): reaching the
        // span does not zero it; the writer claims it or zeroes it at its next read.
        private const int Deferred = 3;

        /// <summary>Buffers up to this many bytes are zeroed when handed out, not when first reached.</summary>
        internal const int EagerClearLimit = 512;

        // Kept small (64 bytes with the object header): a read of small batches allocates one owner per buffer. The
        // allocator is the slab's, and the generation is read from the slab on return: while the block is counted in
        // use the slab cannot move to another generation.
        private readonly nint _address;
        private readonly int _length;
        private readonly int _dirty;
        private readonly int _clearLength;
        private readonly byte _classIndex;

        /// <summary>The block's slab; null once the block has been returned.</summary>
        private Slab? _slab;

        /// <summary>The group that returns the block if this owner is dropped undisposed; it lives while this owner does.</summary>
        private OwnerGroup? _group;
        private byte _slot;
        private int _pins;
        private int _clearState;

        /// <param name="block">The block.</param>
        /// <param name="classIndex">The block's size class.</param>
        /// <param name="length">The buffer's length.</param>
        /// <param name="clearLength">Bytes to zero before the memory is first reached; 0 for none.</param>
        public SlabMemoryOwner(in FreeBlock block, int classIndex, int length, int clearLength)
        {
            if (clearLength > 0 && clearLength <= EagerClearLimit)
            {
                // A few cache lines are cheaper to zero now, while the block is hot from its last owner, than the
                // compare-and-swap that deferring it costs (and few small buffers are decoded whole).
                new Span<byte>((void*)block.Address, clearLength).Clear();
                clearLength = 0;
            }
            _clearLength = clearLength;
            _clearState = clearLength > 0 ? ClearPending : Clean;
            _slab = block.Slab;
            _address = block.Address;
            _classIndex = (byte)classIndex;
            _length = length;
            // What this owner may write joins what earlier owners may have left.
            _dirty = Math.Max(block.Dirty, length);
        }

        internal void JoinGroup(OwnerGroup group, int slot)
        {
            _group = group;
            _slot = (byte)slot;
        }

        /// <summary>Bytes of the block (its size class), for tests.</summary>
        internal long BlockBytes => SizeClasses.SizeOf(_classIndex);

        /// <summary>The group tracking this owner, for tests.</summary>
        internal OwnerGroup? Group => _group;

        /// <summary>From the group's finalizer: this owner is unreachable and was never disposed.</summary>
        internal void ReturnUndisposed() => Dispose(false);

        public override Span<byte> GetSpan()
        {
            if (_slab is null)
                ThrowDisposed();
            int state = Volatile.Read(ref _clearState);
            if (state != Clean && state != Deferred)
                ClearNow();
            return new Span<byte>((void*)_address, _length);
        }

        /// <summary>The buffer as <see cref="Memory{T}"/>, without reaching the memory (so without zeroing it yet).</summary>
        public override Memory<byte> Memory
        {
            get
            {
                if (_slab is null)
                    ThrowDisposed();
                return CreateMemory(_length);
            }
        }

        /// <summary>
        /// Cancels the zeroing of <paramref name="destination"/> if it is the whole of a buffer of this allocator not
        /// yet reached. The caller then must write every byte before anything reads it, and zero the buffer itself if it
        /// cannot.
        /// </summary>
        /// <param name="destination">The memory about to be written.</param>
        /// <param name="isWholeBuffer">
        /// Whether <paramref name="destination"/> is the whole of a buffer of this allocator, which is exactly as long
        /// as was requested: its length is then the length the caller asked for (Arrow's declared length).
        /// </param>
        /// <returns>Whether the zeroing was cancelled.</returns>
        internal static bool TrySkipClear(Memory<byte> destination, out bool isWholeBuffer)
        {
            isWholeBuffer = MemoryMarshal.TryGetMemoryManager<byte, SlabMemoryOwner>(destination, out SlabMemoryOwner? owner, out int start, out int length)
                && start == 0
                && length == owner!._length;
            return isWholeBuffer
                // Read first: most buffers are clean already (small ones are zeroed when handed out), and a compare-and-swap
                // that fails costs as much as one that succeeds (an atomic per decoded buffer of a read of small batches).
                && Volatile.Read(ref owner!._clearState) == ClearPending
                && Interlocked.CompareExchange(ref owner._clearState, Clean, ClearPending) == ClearPending;
        }

        private void ClearNow()
        {
            int state = Volatile.Read(ref _clearState);
            if ((state == ClearPending || state == Deferred)
                && Interlocked.CompareExchange(ref _clearState, Clearing, state) == state)
            {
                new Span<byte>((void*)_address, _clearLength).Clear();
                Volatile.Write(ref _clearState, Clean);
                return;
            }
            // Another thread is zeroing the buffer: its memory is not to be reached before that is done.
            WaitWhileClearing();
        }

        private void WaitWhileClearing()
        {
            var spinner = default(SpinWait);
            while (Volatile.Read(ref _clearState) == Clearing)
                spinner.SpinOnce();
        }

        /// <summary>Leaves the zeroing of a buffer not yet reached to a writer that announced it (<see cref="WholeWriteHandoff"/>).</summary>
        internal bool TryDeferClear() =>
            Interlocked.CompareExchange(ref _clearState, Deferred, ClearPending) == ClearPending;

        /// <summary>The announced writer's read: whether <paramref name="address"/> and <paramref name="length"/> are this whole buffer, whose zeroing it then owes.</summary>
        internal bool TryClaimDeferred(nint address, int length) =>
            address == _address && length == _length
            && Interlocked.CompareExchange(ref _clearState, Clean, Deferred) == Deferred;

        /// <summary>Zeroes a buffer whose zeroing was deferred to a writer that did not write it whole.</summary>
        internal void ClearDeferred()
        {
            if (Interlocked.CompareExchange(ref _clearState, Clearing, Deferred) == Deferred)
            {
                new Span<byte>((void*)_address, _clearLength).Clear();
                Volatile.Write(ref _clearState, Clean);
            }
        }

        public override MemoryHandle Pin(int elementIndex = 0)
        {
            if ((uint)elementIndex > (uint)_length)
                throw new ArgumentOutOfRangeException(nameof(elementIndex));
            if (_slab is null)
                ThrowDisposed();
            // A pointer can go anywhere: a deferred zeroing happens now too.
            if (Volatile.Read(ref _clearState) != Clean)
                ClearNow();
            // Native memory never moves: pinning only counts, so that Dispose can refuse to free pinned memory.
            Interlocked.Increment(ref _pins);
            return new MemoryHandle((byte*)_address + elementIndex, default, this);
        }

        public override void Unpin() => Interlocked.Decrement(ref _pins);

        protected override void Dispose(bool disposing)
        {
            // Like Arrow's NativeMemoryManager: memory someone still holds a pointer to is not freed. From the
            // group's finalizer there can be no MemoryHandle left (it references this owner), so the block is returned.
            // Only managed bookkeeping is updated either way; the native memory is not touched.
            if (disposing && Volatile.Read(ref _pins) > 0)
                throw new InvalidOperationException("Cannot free memory while it is pinned.");
            // A writer that still owes the zeroing must not zero the block once it is someone else's. Read first: only
            // an announced body is ever Deferred, and an atomic on every dispose costs a read of small batches ~6 ns a buffer.
            int state = Volatile.Read(ref _clearState);
            if ((state == Deferred || state == Clearing) && Interlocked.CompareExchange(ref _clearState, Clean, Deferred) == Clearing)
                WaitWhileClearing();
            // Exactly one caller gets the slab: disposing twice, or on two threads at once, returns the block once.
            Slab? slab = Interlocked.Exchange(ref _slab, null);
            if (slab is null)
                return;
            if (disposing)
                _group?.Remove(_slot);
            slab.Allocator.Return(new FreeBlock(slab, _address, slab.Generation, _dirty), _classIndex);
        }

        private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(SlabMemoryOwner));
    }
}
