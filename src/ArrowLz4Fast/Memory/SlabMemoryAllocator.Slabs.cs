using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>Slabs: carving small blocks from the shared slab, dedicated slabs for large blocks, and giving slabs without a block in use back to the OS (over the cap, on a trim, or when idle).</summary>
    public sealed partial class SlabMemoryAllocator
    {
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

        private static int ClampToInt(long value) => (int)Math.Min(value, int.MaxValue);
    }
}
