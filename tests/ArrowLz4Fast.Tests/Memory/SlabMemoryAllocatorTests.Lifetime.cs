using System;
using System.Buffers;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using ArrowLz4Fast.Memory;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Many threads against a model, the cap on free memory, trimming, idle return, finalizers, disposal and the shared instance.</summary>
    public partial class SlabMemoryAllocatorTests
    {
        [Fact]
        public void Random_allocations_on_several_threads_never_share_memory_and_match_the_model()
        {
            const long cap = 8 << 20;
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = cap, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var live = new LiveRegions();
            const int threads = 4;
            var held = new List<Held>[threads];
            var handoff = new System.Collections.Concurrent.ConcurrentQueue<Held>();
            var failures = new List<string>();

            // A large request whose class has no free block takes a larger free one: 900,000 bytes (class 917,504) get
            // the freed 1 MiB block, and the model counts the block a buffer holds, not its request's class.
            allocator.Allocate(1_000_000).Dispose();
            IMemoryOwner<byte> largerBlock = allocator.Allocate(900_000);
            Assert.Equal(1 << 20, BlockBytes(largerBlock));
            Assert.Null(live.Add(Address(largerBlock), 900_000));
            largerBlock.Memory.Span.Fill(0x5A);
            var heldBefore = new Held(largerBlock, Address(largerBlock), 900_000, 0x5A, 1 << 20);

            void Run(int t)
            {
                var random = new Random(1000 + t);
                var mine = held[t] = new List<Held>();
                for (int op = 0; op < 4000; op++)
                {
                    if (mine.Count == 0 || (mine.Count < 48 && random.Next(100) < 55))
                    {
                        int length = random.Next(100) switch
                        {
                            < 70 => random.Next(1, 2048),
                            < 98 => random.Next(2048, 300_000),
                            _ => random.Next(300_000, 3_000_000),
                        };
                        IMemoryOwner<byte> owner = allocator.Allocate(length);
                        Span<byte> span = owner.Memory.Span;
                        long address = Address(owner);
                        long blockBytes = BlockBytes(owner);
                        string? problem = span.Length != length ? $"length {span.Length}, asked {length}"
                            : !BlockFits(length, blockBytes) ? $"{length} bytes got a block of {blockBytes}"
                            : address % 64 != 0 ? $"address {address:x} not 64-byte aligned"
                            : !IsZero(span) ? $"{length} bytes at {address:x} not zeroed"
                            : live.Add(address, length);
                        if (problem is not null)
                        {
                            lock (failures)
                                failures.Add(problem);
                            return;
                        }
                        byte pattern = (byte)random.Next(1, 256);
                        span.Fill(pattern);
                        mine.Add(new Held(owner, address, length, pattern, blockBytes));
                    }
                    else if (random.Next(100) < 15 && handoff.TryDequeue(out Held? other))
                    {
                        // A buffer another thread allocated is disposed here: its block goes to this thread's cache.
                        if (other.Owner.Memory.Span.Count(other.Pattern) != other.Length)
                        {
                            lock (failures)
                                failures.Add($"{other.Length} bytes at {other.Address:x} were overwritten while handed over");
                            return;
                        }
                        live.Remove(other.Address);
                        other.Owner.Dispose();
                    }
                    else
                    {
                        int index = random.Next(mine.Count);
                        Held h = mine[index];
                        mine[index] = mine[^1];
                        mine.RemoveAt(mine.Count - 1);
                        if (random.Next(100) < 15)
                        {
                            handoff.Enqueue(h);
                            continue;
                        }
                        // Nobody else wrote into this buffer while it was ours.
                        if (h.Owner.Memory.Span.Count(h.Pattern) != h.Length)
                        {
                            lock (failures)
                                failures.Add($"{h.Length} bytes at {h.Address:x} were overwritten while in use");
                            return;
                        }
                        live.Remove(h.Address);
                        h.Owner.Dispose();
                        if (random.Next(10) == 0)
                            h.Owner.Dispose(); // a second Dispose changes nothing
                    }
                    if (t == 0 && op % 500 == 0)
                        allocator.Trim(); // concurrent trimming must not take a block from anyone
                }
            }

            var workers = Enumerable.Range(0, threads).Select(t => new Thread(() => Run(t))).ToArray();
            foreach (Thread worker in workers)
                worker.Start();
            foreach (Thread worker in workers)
                worker.Join();
            Assert.Empty(failures);

            held[0].AddRange(handoff);
            held[0].Add(heldBefore);
            long modelInUse = held.SelectMany(h => h).Sum(h => h.BlockBytes);
            Assert.Equal(modelInUse, allocator.BytesInUse);
            Assert.Equal(allocator.SumOfSlabSizes(), allocator.BytesRetained);
            Assert.True(allocator.BytesRetained >= modelInUse);

            foreach (Held h in held.SelectMany(h => h))
            {
                Assert.Equal(h.Length, h.Owner.Memory.Span.Count(h.Pattern));
                h.Owner.Dispose();
            }
            Assert.Equal(0, allocator.BytesInUse);
            Assert.True(allocator.BytesRetained <= cap, $"{allocator.BytesRetained} bytes retained, cap {cap}");
            Assert.Equal(allocator.SumOfSlabSizes(), allocator.BytesRetained);
            allocator.Trim();
            Assert.Equal(0, allocator.BytesRetained);
            Assert.Equal(0, allocator.SlabCount);
        }

        [Fact]
        public void Free_memory_never_stays_above_the_cap_after_buffers_are_returned()
        {
            const long cap = 3 << 20;
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = cap, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var random = new Random(7);
            for (int round = 0; round < 20; round++)
            {
                var owners = Enumerable.Range(0, 1 + random.Next(12))
                    .Select(_ => allocator.Allocate(random.Next(2) == 0 ? random.Next(1, 200_000) : random.Next(300_000, 2_000_000)))
                    .ToList();
                foreach (IMemoryOwner<byte> owner in owners.OrderBy(_ => random.Next()))
                    owner.Dispose();
                Assert.Equal(0, allocator.BytesInUse);
                Assert.True(allocator.BytesRetained <= cap, $"round {round}: {allocator.BytesRetained} bytes retained, cap {cap}");
            }

            var none = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = 0 });
            none.Allocate(1_000_000).Dispose();
            none.Allocate(1000).Dispose();
            Assert.Equal(0, none.BytesRetained);
        }

        [Fact]
        public void Trim_gives_back_free_slabs_and_keeps_those_in_use()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            IMemoryOwner<byte> keep = allocator.Allocate(2_000_000);
            Span<byte> kept = keep.Memory.Span;
            kept.Fill(0x11);
            for (int i = 0; i < 10; i++)
                allocator.Allocate(500_000 + i * 10_000).Dispose();
            long retained = allocator.BytesRetained;
            long released = allocator.Trim();
            Assert.True(released > 0);
            Assert.Equal(retained - released, allocator.BytesRetained);
            Assert.Equal(SizeClasses.SizeOf(SizeClasses.IndexOf(2_000_000)), allocator.BytesRetained);
            Assert.Equal(kept.Length, keep.Memory.Span.Count((byte)0x11));
            keep.Dispose();
            allocator.Trim();
            Assert.Equal(0, allocator.BytesRetained);
        }

        [Fact]
        public void Idle_memory_goes_back_after_the_grace_period()
        {
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = TimeSpan.FromMilliseconds(50) });
            IMemoryOwner<byte> held = allocator.Allocate(10_000);
            for (int i = 0; i < 5; i++)
                allocator.Allocate(400_000 * (i + 1)).Dispose();
            Assert.True(WaitUntil(() => allocator.BytesRetained == SlabMemoryAllocator.SharedSlabSize),
                $"free slabs not given back: {allocator.BytesRetained} bytes retained");
            held.Dispose();
            Assert.True(WaitUntil(() => allocator.BytesRetained == 0), $"{allocator.BytesRetained} bytes retained");

            // After sleeping the timer comes back with the next slab.
            allocator.Allocate(1_000_000).Dispose();
            Assert.True(WaitUntil(() => allocator.BytesRetained == 0), $"{allocator.BytesRetained} bytes retained");
        }

        [Fact]
        public void Undisposed_buffers_come_back_through_their_finalizers()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            long heldByCurrentGroup = AllocateAndDrop(allocator);
            // Everything comes back but the dropped buffers of the group this thread's cache is still filling...
            Assert.True(heldByCurrentGroup > 0);
            Assert.True(CollectUntil(() => allocator.BytesInUse == heldByCurrentGroup), $"{allocator.BytesInUse} bytes still in use, {heldByCurrentGroup} expected");
            // ...which come back once a trim lets go of that group.
            allocator.Trim();
            Assert.True(CollectUntil(() => allocator.BytesInUse == 0), $"{allocator.BytesInUse} bytes still in use");

            // The returned blocks are handed out again, zeroed, once each.
            var live = new LiveRegions();
            var owners = new List<IMemoryOwner<byte>>();
            foreach (int length in Lengths())
            {
                IMemoryOwner<byte> owner = allocator.Allocate(length);
                Assert.True(IsZero(owner.Memory.Span));
                Assert.Null(live.Add(Address(owner), length));
                owners.Add(owner);
            }
            owners.ForEach(o => o.Dispose());
            Assert.Equal(0, allocator.BytesInUse);
        }

        [Fact]
        public void A_dropped_allocator_is_collected_although_its_idle_timer_is_armed()
        {
            WeakReference reference = UseAndDropAllocator();
            Assert.True(CollectUntil(() => !reference.IsAlive), "the allocator is still reachable");
        }

        [Fact]
        public void Dispose_twice_returns_once_and_a_disposed_buffer_cannot_be_read()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            IMemoryOwner<byte> owner = allocator.Allocate(3000);
            long address = Address(owner);
            owner.Dispose();
            owner.Dispose();
            Assert.Equal(0, allocator.BytesInUse);
            Assert.Throws<ObjectDisposedException>(() => owner.Memory.Span.Length);

            using IMemoryOwner<byte> a = allocator.Allocate(3000);
            using IMemoryOwner<byte> b = allocator.Allocate(3000);
            Assert.Equal(address, Address(a));
            Assert.NotEqual(address, Address(b));
        }

        [Fact]
        public unsafe void Pinning_gives_the_buffer_address_and_pinned_memory_is_not_freed()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            IMemoryOwner<byte> owner = allocator.Allocate(4096);
            MemoryHandle handle = owner.Memory.Slice(100).Pin();
            Assert.Equal(Address(owner) + 100, (long)handle.Pointer);
            Assert.Throws<InvalidOperationException>(() => owner.Dispose());
            Assert.Equal(4096, allocator.BytesInUse);
            handle.Dispose();
            owner.Dispose();
            Assert.Equal(0, allocator.BytesInUse);
        }

        [Fact]
        public void The_shared_instance_and_arrow_statistics_work()
        {
            using IMemoryOwner<byte> owner = SlabMemoryAllocator.Shared.Allocate(10);
            Assert.Equal(10, owner.Memory.Length);
            Assert.True(SlabMemoryAllocator.Shared.Statistics.BytesAllocated >= 64);
            Assert.Equal(0, SlabMemoryAllocator.Shared.Allocate(0).Memory.Length);
            Assert.Throws<ArgumentOutOfRangeException>(() => new SlabMemoryAllocatorOptions { MaxIdleBytes = -1 });
            Assert.Throws<ArgumentOutOfRangeException>(() => new SlabMemoryAllocatorOptions { IdleTrimDelay = TimeSpan.Zero });
        }
    }
}
