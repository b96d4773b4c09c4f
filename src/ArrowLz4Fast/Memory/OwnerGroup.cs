using System;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// Returns the blocks of buffers that are dropped without being disposed. A finalizer on every buffer would do it
    /// too, but registering each of thousands of small buffers for finalization (what Arrow's own allocator does) costs
    /// more than the rest of allocating and returning it. So one finalizable group tracks up to 64 buffers allocated
    /// one after the other on a thread (of any allocator): each buffer references its group, the group references its
    /// undisposed buffers, and when the group becomes unreachable (all its buffers are) its finalizer returns the blocks
    /// of those never disposed. The thread holds the group it is filling only weakly, so it never keeps one alive.
    /// </summary>
    /// <remarks>
    /// A dropped buffer's memory therefore comes back once the buffers allocated around it are unreachable too; a
    /// disposed buffer leaves its group at once, so the group never keeps it alive.
    /// </remarks>
    internal sealed class OwnerGroup
    {
        public const int Capacity = 64;

        private readonly SlabMemoryOwner?[] _owners = new SlabMemoryOwner?[Capacity];
        private int _count;

        [ThreadStatic]
        private static WeakReference<OwnerGroup>? t_current;

        /// <summary>Puts a new owner in this thread's current group, starting a new group when it is full or gone.</summary>
        public static void Track(SlabMemoryOwner owner)
        {
            WeakReference<OwnerGroup>? current = t_current;
            if (current is not null && current.TryGetTarget(out OwnerGroup? group) && group.TryAdd(owner))
                return;
            group = new OwnerGroup();
            group.TryAdd(owner);
            if (current is null)
                t_current = new WeakReference<OwnerGroup>(group);
            else
                current.SetTarget(group);
        }

        /// <summary>Adds <paramref name="owner"/>; <see langword="false"/> when the group is full. Only its thread adds.</summary>
        private bool TryAdd(SlabMemoryOwner owner)
        {
            int slot = _count;
            if (slot == Capacity)
                return false;
            _count = slot + 1;
            _owners[slot] = owner;
            owner.JoinGroup(this, slot);
            return true;
        }

        /// <summary>Forgets a disposed owner.</summary>
        public void Remove(int slot) => Volatile.Write(ref _owners[slot], null);

        ~OwnerGroup()
        {
            // Unreachable, so every owner still listed is unreachable too and none can be disposed meanwhile.
            foreach (SlabMemoryOwner? owner in _owners)
                owner?.ReturnUndisposed();
        }
    }
}
