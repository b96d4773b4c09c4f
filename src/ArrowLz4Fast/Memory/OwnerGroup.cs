using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// Returns the blocks of buffers that are dropped without being disposed. A finalizer on every buffer would do it
    /// too, but registering each of thousands of small buffers for finalization (what Arrow's own allocator does) costs
    /// more than the rest of allocating and returning it. So one finalizable group tracks up to 64 buffers allocated
    /// one after the other on a thread (of any allocator): each buffer references its group, the group references its
    /// undisposed buffers, and when the group becomes unreachable (all its buffers are) its finalizer returns the blocks
    /// of those never disposed. The group being filled by a thread's cache of an allocator is held by that cache until
    /// it is full or a trim lets it go (see <see cref="ThreadCache"/>: a group that dies while being filled wakes the
    /// finalizer thread); the one for buffers that bypass a cache (large ones) is held only weakly, by the thread.
    /// </summary>
    /// <remarks>
    /// A dropped buffer's memory therefore comes back once the buffers allocated around it are unreachable too (and,
    /// for the last 63 small buffers a thread allocated, once it allocates more or a trim ran); a disposed buffer leaves
    /// its group at once, so the group never keeps it alive.
    /// </remarks>
    internal sealed class OwnerGroup
    {
        public const int Capacity = 64;

        private readonly SlabMemoryOwner?[] _owners = new SlabMemoryOwner?[Capacity];
        private int _count;

        /// <summary>
        /// Owners disposed, counted without an atomic instruction: two owners disposed at the same moment on two threads
        /// may count once, so the count can fall short of the truth but never exceed it (each owner is disposed once).
        /// </summary>
        private int _disposed;

        [ThreadStatic]
        private static WeakReference<OwnerGroup>? t_current;

        /// <summary>Puts a new owner in this thread's current group, starting a new group when it is full or gone.</summary>
        public static void Track(SlabMemoryOwner owner) => Track(ref t_current, owner);

        /// <summary>
        /// Puts a new owner in the group <paramref name="current"/> refers to, starting a new group when it is full or
        /// gone. <paramref name="current"/> belongs to the calling thread.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void Track(ref WeakReference<OwnerGroup>? current, SlabMemoryOwner owner)
        {
            WeakReference<OwnerGroup>? reference = current;
            if (reference is null || !reference.TryGetTarget(out OwnerGroup? group) || !group.TryAdd(owner))
                TrackInNewGroup(ref current, owner);
        }

        /// <summary>Starts a group for <paramref name="owner"/>: every 64th owner, out of the inlined path.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void TrackInNewGroup(ref WeakReference<OwnerGroup>? current, SlabMemoryOwner owner)
        {
            WeakReference<OwnerGroup>? reference = current;
            var group = new OwnerGroup();
            group.TryAdd(owner);
            if (reference is null)
                current = new WeakReference<OwnerGroup>(group);
            else
                reference.SetTarget(group);
        }

        /// <summary>Adds <paramref name="owner"/>; <see langword="false"/> when the group is full. Only the thread filling it adds.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool TryAdd(SlabMemoryOwner owner)
        {
            int slot = _count;
            if (slot == Capacity)
                return false;
            _count = slot + 1;
            _owners[slot] = owner;
            owner.JoinGroup(this, slot);
            return true;
        }

        /// <summary>
        /// Forgets a disposed owner. When all of a full group's owners are disposed, the group has nothing left to do
        /// and leaves the finalization queue: a finalizable object that survives to a collection is promoted and
        /// finalized on the finalizer thread, which for a read of thousands of small buffers costs more than the
        /// buffers' atomic operations. A count that falls short only leaves the (then empty) finalizer to run.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Remove(int slot)
        {
            Volatile.Write(ref _owners[slot], null);
            if (++_disposed == Capacity)
#pragma warning disable CA1816 // not a Dispose: the group's work is done once its last owner is disposed
                GC.SuppressFinalize(this);
#pragma warning restore CA1816
        }

        /// <summary>For tests: bytes of the blocks of the owners in the group not disposed yet.</summary>
        internal long UndisposedBytes()
        {
            long total = 0;
            foreach (SlabMemoryOwner? owner in _owners)
                total += owner?.BlockBytes ?? 0;
            return total;
        }

        ~OwnerGroup()
        {
            // Unreachable, so every owner still listed is unreachable too and none can be disposed meanwhile.
            foreach (SlabMemoryOwner? owner in _owners)
                owner?.ReturnUndisposed();
        }
    }
}
