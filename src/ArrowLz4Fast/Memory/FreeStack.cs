using System;
using System.Diagnostics;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// The free blocks of one size class on one stripe: a LIFO stack (the most recently freed block is the most likely
    /// to be in cache) behind a spin lock held for a few instructions. Each size class has one stack per stripe and a
    /// thread uses the stripe of the core it runs on, so concurrent readers rarely meet on the same lock.
    /// </summary>
    internal sealed class FreeStack
    {
        private FreeBlock[] _items = new FreeBlock[8];
        private int _count;
        private int _lock;

        public int Count => Volatile.Read(ref _count);

        public void Push(in FreeBlock block)
        {
            Enter();
            try
            {
                if (_count == _items.Length)
                    Array.Resize(ref _items, _items.Length * 2);
                _items[_count] = block;
                Volatile.Write(ref _count, _count + 1);
            }
            finally
            {
                Exit();
            }
        }

        /// <summary>
        /// Pops blocks until one can be taken (and is counted in use, as <paramref name="size"/> bytes); stale blocks of
        /// retired slabs are dropped on the way.
        /// </summary>
        public bool TryPop(long size, out FreeBlock block)
        {
            while (Volatile.Read(ref _count) > 0)
            {
                Enter();
                int count = _count;
                if (count == 0)
                {
                    Exit();
                    break;
                }
                block = _items[count - 1];
                Debug.Assert(count <= _items.Length, "the count never passes the entries");
                _items[count - 1] = default;
                Volatile.Write(ref _count, count - 1);
                Exit();
                if (block.Slab.TryAcquire(block.Generation, size))
                    return true;
            }
            block = default;
            return false;
        }

        /// <summary>Drops the blocks of slabs retired since they were freed. Returns how many blocks remain.</summary>
        public int RemoveStale()
        {
            Enter();
            int kept = 0;
            for (int i = 0; i < _count; i++)
            {
                FreeBlock block = _items[i];
                if (block.Slab.Generation == block.Generation)
                    _items[kept++] = block;
            }
            Array.Clear(_items, kept, _count - kept);
            Volatile.Write(ref _count, kept);
            Exit();
            return kept;
        }

        private void Enter()
        {
            if (Interlocked.CompareExchange(ref _lock, 1, 0) != 0)
                EnterContended();
        }

        private void EnterContended()
        {
            var spinner = default(SpinWait);
            do
            {
                spinner.SpinOnce();
            }
            while (Volatile.Read(ref _lock) != 0 || Interlocked.CompareExchange(ref _lock, 1, 0) != 0);
        }

        private void Exit()
        {
            Debug.Assert(_lock == 1, "only the holder of the list's lock leaves it");
            Volatile.Write(ref _lock, 0);
        }
    }
}
