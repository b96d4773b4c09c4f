using System;
using System.Buffers;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using ArrowLz4Fast.Memory;
using Xunit;
using static ArrowLz4Fast.Tests.SlabMemoryAllocatorTests;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The per-thread caches of small free blocks: a thread reuses what it freed without the shared lists, yet a cached
    /// block is never handed out twice, never keeps a slab from going back to the OS, and never keeps a dropped
    /// allocator alive. Each test runs on a thread of its own, whose cache starts empty.
    /// </summary>
    public class SlabMemoryAllocatorThreadCacheTests
    {
        private static readonly SlabMemoryAllocatorOptions NoIdleTrim = new() { IdleTrimDelay = Timeout.InfiniteTimeSpan };

        [Fact]
        public void A_thread_reuses_the_blocks_it_freed_zeroed_and_trim_still_returns_their_slab() => OnNewThread(() =>
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            List<IMemoryOwner<byte>> first = Enumerable.Range(0, 20).Select(_ => allocator.Allocate(300)).ToList();
            var addresses = new HashSet<long>(first.Select(Address));
            Assert.Equal(20, addresses.Count);
            foreach (IMemoryOwner<byte> owner in first)
            {
                owner.Memory.Span.Fill(0xFF);
                owner.Dispose();
            }
            // A class keeps 16 blocks per thread; the other four went to the shared lists. None is in use.
            Assert.Equal(ThreadCache.Capacity, allocator.CachedOnThisThread());
            Assert.Equal(0, allocator.BytesInUse);

            List<IMemoryOwner<byte>> second = Enumerable.Range(0, ThreadCache.Capacity).Select(_ => allocator.Allocate(300)).ToList();
            Assert.Equal(0, allocator.CachedOnThisThread());
            Assert.All(second, owner => Assert.Contains(Address(owner), addresses));
            Assert.All(second, owner => Assert.True(IsZero(owner.Memory.Span)));
            Assert.Equal(ThreadCache.Capacity * 320L, allocator.BytesInUse); // 300 bytes round up to 320
            Assert.Equal(1, allocator.SlabCount);
            foreach (IMemoryOwner<byte> owner in second)
                owner.Dispose();

            // Cached blocks are not in use by any buffer, and a trim takes them back: the slab goes back.
            Assert.Equal(ThreadCache.Capacity, allocator.CachedOnThisThread());
            Assert.Equal(0, allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize, allocator.Trim());
            Assert.Equal(0, allocator.SlabCount);
            Assert.Equal(0, allocator.CachedOnThisThread());
            using IMemoryOwner<byte> fresh = allocator.Allocate(300);
            Assert.Equal(0, allocator.CachedOnThisThread());
            Assert.Equal(1, allocator.SlabCount);
            Assert.Equal(320, allocator.BytesInUse);
            Assert.True(IsZero(fresh.Memory.Span));
        });

        [Fact]
        public void Buffers_freed_on_other_threads_go_to_the_shared_lists_or_that_threads_cache_and_their_slab_still_empties() => OnNewThread(() =>
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            List<IMemoryOwner<byte>> owners = Enumerable.Range(0, 8).Select(_ => allocator.Allocate(1000)).ToList();
            var addresses = new HashSet<long>(owners.Select(Address));

            // A thread that never allocated has no cache (a consumer that only disposes batches would strand blocks
            // in one): the blocks go to the shared lists, where this thread finds them again.
            int cachedThere = -1;
            OnNewThread(() =>
            {
                foreach (IMemoryOwner<byte> owner in owners.Take(4))
                    owner.Dispose();
                cachedThere = allocator.CachedOnThisThread();
            });
            Assert.Equal(0, cachedThere);
            List<IMemoryOwner<byte>> again = Enumerable.Range(0, 4).Select(_ => allocator.Allocate(1000)).ToList();
            Assert.All(again, owner => Assert.Contains(Address(owner), addresses));

            // A thread that allocates keeps what it frees, whoever allocated it; when it dies its blocks are not leaked:
            // the allocator takes them back from its cache and the slab goes back.
            OnNewThread(() =>
            {
                allocator.Allocate(1000).Dispose();
                foreach (IMemoryOwner<byte> owner in owners.Skip(4).Concat(again))
                    owner.Dispose();
                cachedThere = allocator.CachedOnThisThread();
            });
            Assert.Equal(9, cachedThere);
            Assert.Equal(0, allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize, allocator.Trim());
            Assert.Equal(0, allocator.BytesRetained);
        });

        [Fact]
        public void A_thread_that_moves_to_another_allocator_hands_its_cached_blocks_back() => OnNewThread(() =>
        {
            var a = new SlabMemoryAllocator(NoIdleTrim);
            var b = new SlabMemoryAllocator(NoIdleTrim);
            List<IMemoryOwner<byte>> owners = Enumerable.Range(0, 6).Select(_ => a.Allocate(2000)).ToList();
            var addresses = new HashSet<long>(owners.Select(Address));
            foreach (IMemoryOwner<byte> owner in owners)
                owner.Dispose();
            Assert.Equal(6, a.CachedOnThisThread());

            // A few allocations from b leave the cache with a (a thread may use two allocators by turns)...
            for (int i = 0; i < 10; i++)
                b.Allocate(100).Dispose();
            Assert.Equal(6, a.CachedOnThisThread());
            // ...but a thread that keeps allocating from b moves its cache there, and a's blocks go to a's lists.
            for (int i = 0; i < 100; i++)
                b.Allocate(100).Dispose();
            Assert.Equal(0, a.CachedOnThisThread());
            Assert.Equal(1, b.CachedOnThisThread());

            // Another thread finds them there instead of carving new ones.
            long reused = 0;
            OnNewThread(() =>
            {
                using IMemoryOwner<byte> owner = a.Allocate(2000);
                reused = Address(owner);
            });
            Assert.Contains(reused, addresses);
            Assert.Equal(1, a.SlabCount);
        });

        [Fact]
        public void A_dropped_allocator_is_collected_while_a_live_thread_caches_its_blocks() => OnNewThread(() =>
        {
            WeakReference reference = UseAndDrop();
            for (int i = 0; i < 20 && reference.IsAlive; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            Assert.False(reference.IsAlive, "the thread's cache keeps the allocator alive");
        });

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference UseAndDrop()
        {
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = TimeSpan.FromHours(1) });
            allocator.Allocate(1000).Dispose();
            Assert.Equal(1, allocator.CachedOnThisThread());
            return new WeakReference(allocator);
        }

        [Fact]
        public void Undisposed_buffers_come_back_whether_a_cache_or_the_thread_tracked_them() => OnNewThread(() =>
        {
            var a = new SlabMemoryAllocator(NoIdleTrim);
            var b = new SlabMemoryAllocator(NoIdleTrim);
            AllocateInTurnsAndDrop(a, b);
            // a's cache was retired (letting go of its group); b's cache still holds the group it is filling, whose 10
            // buffers come back once a trim lets go of it.
            Assert.True(CollectUntil(() => a.BytesInUse == 0 && b.BytesInUse == 10 * 320), $"{a.BytesInUse} + {b.BytesInUse} bytes still in use");
            b.Trim();
            Assert.True(CollectUntil(() => b.BytesInUse == 0), $"{b.BytesInUse} bytes still in use");
        });

        /// <summary>
        /// Small buffers of the allocator whose cache the thread holds join that cache's group; the other allocator's
        /// (until the thread's cache moves to it, at its 64th allocation) and large buffers join the thread's group.
        /// Every buffer is dropped undisposed; the groups are checked here so that no reference to them outlives it.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void AllocateInTurnsAndDrop(SlabMemoryAllocator a, SlabMemoryAllocator b)
        {
            static OwnerGroup GroupOf(IMemoryOwner<byte> owner) => ((SlabMemoryOwner)owner).Group!;

            List<IMemoryOwner<byte>> aSmall = Enumerable.Range(0, 10).Select(_ => a.Allocate(300)).ToList();
            List<IMemoryOwner<byte>> bBefore = Enumerable.Range(0, 63).Select(_ => b.Allocate(300)).ToList();
            List<IMemoryOwner<byte>> aLarge = Enumerable.Range(0, 3).Select(_ => a.Allocate(100_000)).ToList();
            List<IMemoryOwner<byte>> bAfter = Enumerable.Range(0, 10).Select(_ => b.Allocate(300)).ToList();
            IMemoryOwner<byte> aLater = a.Allocate(300);

            OwnerGroup cacheA = GroupOf(aSmall[0]);
            Assert.All(aSmall, owner => Assert.Same(cacheA, GroupOf(owner)));
            OwnerGroup thread = GroupOf(bBefore[0]);
            Assert.NotSame(cacheA, thread);
            Assert.All(bBefore, owner => Assert.Same(thread, GroupOf(owner)));
            Assert.Same(thread, GroupOf(aLarge[0])); // 63 + 1: the thread's group is full after it
            Assert.NotSame(thread, GroupOf(aLarge[1]));
            Assert.Same(GroupOf(aLarge[1]), GroupOf(aLarge[2]));
            OwnerGroup cacheB = GroupOf(bAfter[0]); // the 64th allocation of b moved the thread's cache to b
            Assert.All(bAfter, owner => Assert.Same(cacheB, GroupOf(owner)));
            Assert.NotSame(cacheA, cacheB);
            Assert.NotSame(thread, cacheB);
            Assert.Same(GroupOf(aLarge[2]), GroupOf(aLater)); // a no longer has the cache: the thread's group again
        }

        [Fact]
        public void Trims_on_another_thread_never_take_a_block_from_a_thread_using_or_caching_it()
        {
            // Two threads allocate, fill, check and dispose small buffers through their caches (no atomic operation on
            // that path) while a third trims without pause, taking the caches' blocks back by the handshake each time.
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            var live = new LiveRegions();
            var failures = new List<string>();
            int running = 2;
            long trims = 0;

            void Work(int seed)
            {
                var random = new Random(seed);
                var mine = new List<(IMemoryOwner<byte> Owner, long Address, byte Pattern)>();
                for (int op = 0; op < 30_000 && failures.Count == 0; op++)
                {
                    if (mine.Count < 8 && (mine.Count == 0 || random.Next(2) == 0))
                    {
                        int length = random.Next(1, 4096);
                        IMemoryOwner<byte> owner = allocator.Allocate(length);
                        long address = Address(owner);
                        string? problem = !IsZero(owner.Memory.Span) ? $"{length} bytes at {address:x} not zeroed" : live.Add(address, length);
                        if (problem is not null)
                        {
                            lock (failures)
                                failures.Add(problem);
                            return;
                        }
                        byte pattern = (byte)random.Next(1, 256);
                        owner.Memory.Span.Fill(pattern);
                        mine.Add((owner, address, pattern));
                    }
                    else
                    {
                        int index = random.Next(mine.Count);
                        var (owner, address, pattern) = mine[index];
                        mine.RemoveAt(index);
                        if (owner.Memory.Span.Count(pattern) != owner.Memory.Length)
                        {
                            lock (failures)
                                failures.Add($"{owner.Memory.Length} bytes at {address:x} were overwritten while in use");
                            return;
                        }
                        live.Remove(address);
                        owner.Dispose();
                    }
                }
                foreach (var (owner, address, _) in mine)
                {
                    live.Remove(address);
                    owner.Dispose();
                }
            }

            var workers = new[] { new Thread(() => Work(1)), new Thread(() => Work(2)) };
            var trimmer = new Thread(() =>
            {
                while (Volatile.Read(ref running) > 0)
                {
                    allocator.Trim();
                    trims++;
                }
            });
            trimmer.Start();
            foreach (Thread worker in workers)
                worker.Start();
            foreach (Thread worker in workers)
                worker.Join();
            Interlocked.Exchange(ref running, 0);
            trimmer.Join();

            Assert.Empty(failures);
            Assert.True(trims > 0);
            Assert.Equal(0, allocator.BytesInUse);
            allocator.Trim();
            Assert.Equal(0, allocator.BytesRetained);
        }

        [Fact]
        public void A_thread_keeps_at_most_MaxBytes_and_none_with_a_cap_of_zero() => OnNewThread(() =>
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            // 16 blocks of 64 KiB fill the thread's allowance: the blocks of 48 KiB go to the shared lists.
            var owners = Enumerable.Range(0, 16).Select(_ => allocator.Allocate(64 << 10))
                .Concat(Enumerable.Range(0, 4).Select(_ => allocator.Allocate(48 << 10))).ToList();
            owners.ForEach(o => o.Dispose());
            Assert.Equal(16, allocator.CachedOnThisThread());
            Assert.Equal(ThreadCache.MaxBytes, 16L * (64 << 10));
            Assert.Equal(0, allocator.BytesInUse);

            // MaxIdleBytes = 0 keeps nothing not in use, so no thread caches its blocks either.
            var none = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = 0, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            for (int i = 0; i < 10; i++)
                none.Allocate(1000).Dispose();
            Assert.Equal(0, none.CachedOnThisThread());
            Assert.Equal(0, none.BytesRetained);
        });

        [Fact]
        public void Over_the_cap_caches_are_emptied_and_returns_are_not_cached_until_under_it_again() => OnNewThread(() =>
        {
            const long cap = SlabMemoryAllocator.SharedSlabSize;
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = cap, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            List<IMemoryOwner<byte>> small = Enumerable.Range(0, 20).Select(_ => allocator.Allocate(1000)).ToList();
            small.Take(10).ToList().ForEach(o => o.Dispose());
            Assert.Equal(10, allocator.CachedOnThisThread()); // one shared slab retained: at the cap, not over it

            // A slab of its own for a large buffer takes the allocator over the cap: the cache's blocks go back to the
            // shared lists (counted free there), and blocks returned meanwhile are not cached.
            IMemoryOwner<byte> large = allocator.Allocate(1 << 20);
            Assert.True(allocator.BytesRetained > cap);
            Assert.Equal(0, allocator.CachedOnThisThread());
            small.Skip(10).ToList().ForEach(o => o.Dispose());
            Assert.Equal(0, allocator.CachedOnThisThread());
            Assert.Equal(1 << 20, allocator.BytesInUse);

            // Its return leaves nothing in use: free memory over the cap goes back at once, and under the cap again the
            // thread caches what it returns.
            large.Dispose();
            Assert.Equal(0, allocator.BytesInUse);
            Assert.True(allocator.BytesRetained <= cap, $"{allocator.BytesRetained} bytes retained");
            allocator.Allocate(1000).Dispose();
            Assert.Equal(1, allocator.CachedOnThisThread());
        });

        [Fact]
        public void A_thread_that_stops_allocating_gives_its_cached_blocks_back_while_others_go_on()
        {
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = TimeSpan.FromMilliseconds(100) });
            using var cached = new ManualResetEventSlim();
            using var done = new ManualResetEventSlim();
            int cachedAtTheEnd = -1;
            var parked = new Thread(() =>
            {
                for (int i = 0; i < 10; i++)
                    allocator.Allocate(1000 + i).Dispose();
                cached.Set();
                done.Wait();
                cachedAtTheEnd = allocator.CachedOnThisThread();
            });
            parked.Start();
            cached.Wait();
            Assert.True(allocator.CachedBytesOfAllCaches() > 0);

            // This thread keeps the allocator busy with buffers too large to cache, so the whole allocator is never
            // idle: only the parked thread's cache is, and its blocks go back after the grace period.
            DateTime deadline = DateTime.UtcNow.AddSeconds(30);
            while (allocator.CachedBytesOfAllCaches() > 0 && DateTime.UtcNow < deadline)
            {
                allocator.Allocate(200_000).Dispose();
                Thread.Sleep(5);
            }
            done.Set();
            parked.Join();
            Assert.Equal(0, allocator.CachedBytesOfAllCaches());
            Assert.Equal(0, cachedAtTheEnd);
            Assert.True(allocator.BytesRetained > 0); // the allocator as a whole was not trimmed
        }

        /// <summary>Runs <paramref name="body"/> on a new thread (with an empty cache) and rethrows what it threw.</summary>
        private static void OnNewThread(Action body)
        {
            Exception? failure = null;
            var thread = new Thread(() =>
            {
                try
                {
                    body();
                }
                catch (Exception e)
                {
                    failure = e;
                }
            });
            thread.Start();
            thread.Join();
            if (failure is not null)
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }
    }
}
