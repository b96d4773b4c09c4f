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
    /// <summary>
    /// The allocator against a model of what it must do: live buffers never share a byte, every buffer starts 64-byte
    /// aligned and zeroed, the byte counts match the buffers handed out, free memory stays under the cap, and memory
    /// comes back from Dispose, a second Dispose, the finalizer, Trim and the idle timer. No test asserts a timing.
    /// </summary>
    public class SlabMemoryAllocatorTests
    {
        private static readonly SlabMemoryAllocatorOptions NoIdleTrim = new() { IdleTrimDelay = Timeout.InfiniteTimeSpan };

        [Fact]
        public void Size_classes_are_64_byte_multiples_that_waste_less_than_a_quarter()
        {
            var lengths = Enumerable.Range(1, 70_000)
                .Concat(Enumerable.Range(0, 31).SelectMany(k => new[] { (1L << k) - 1, 1L << k, (1L << k) + 1, 5L << Math.Max(0, k - 2), (5L << Math.Max(0, k - 2)) + 1 }).Where(n => n is > 0 and <= int.MaxValue).Select(n => (int)n))
                .Append(int.MaxValue)
                .Distinct()
                .OrderBy(n => n);
            int previous = 0;
            foreach (int length in lengths)
            {
                int index = SizeClasses.IndexOf(length);
                long size = SizeClasses.SizeOf(index);
                Assert.InRange(index, previous, SizeClasses.Count - 1);
                Assert.True(size >= length, $"{length}: class {index} holds {size}");
                Assert.True(index == 0 || SizeClasses.SizeOf(index - 1) < length, $"{length}: class {index - 1} would do");
                Assert.Equal(0, size % 64);
                if (length > 256)
                    Assert.True(size - length < length / 4.0, $"{length} rounds up to {size}");
                previous = index;
            }
            Assert.Equal(SizeClasses.Count - 1, SizeClasses.IndexOf(int.MaxValue));
            Assert.Equal(256 << 10, SizeClasses.SizeOf(SlabMemoryAllocator.MaxSharedClass));
        }

        [Fact]
        public void Byte_counts_follow_the_buffers_handed_out_and_a_freed_block_is_reused()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            IMemoryOwner<byte> small = allocator.Allocate(100);
            Assert.Equal(128, allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize, allocator.BytesRetained);
            Assert.Equal(1, allocator.SlabCount);

            IMemoryOwner<byte> large = allocator.Allocate(1_000_000);
            long largeAddress = Address(large);
            Assert.Equal(128 + (1 << 20), allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize + (1 << 20), allocator.BytesRetained);
            Assert.Equal(2, allocator.SlabCount);

            large.Dispose();
            Assert.Equal(128, allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize + (1 << 20), allocator.BytesRetained);

            // 900,000 bytes is a smaller class (917,504); its list is empty, so the free 1 MiB block one class up is taken.
            IMemoryOwner<byte> again = allocator.Allocate(900_000);
            Assert.Equal(largeAddress, Address(again));
            Assert.Equal(128 + (1 << 20), allocator.BytesInUse);
            Assert.Equal(2, allocator.SlabCount);

            again.Dispose();
            Assert.Equal(1 << 20, allocator.Trim());
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize, allocator.BytesRetained);
            small.Dispose();
            Assert.Equal(0, allocator.BytesInUse);
            Assert.Equal(SlabMemoryAllocator.SharedSlabSize, allocator.Trim());
            Assert.Equal(0, allocator.BytesRetained);
            Assert.Equal(0, allocator.SlabCount);
            Assert.Equal(0, allocator.Trim());
        }

        [Fact]
        public void Buffers_are_zeroed_even_where_an_earlier_owner_of_the_block_wrote_beyond_the_new_length()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            IMemoryOwner<byte> first = allocator.Allocate(1024);
            long address = Address(first);
            first.Memory.Span.Fill(0xFF);
            first.Dispose();

            // Same class (897..1024 bytes), same block: the 900 bytes handed out are cleared.
            IMemoryOwner<byte> shorter = allocator.Allocate(900);
            Assert.Equal(address, Address(shorter));
            Assert.True(IsZero(shorter.Memory.Span));
            shorter.Dispose();

            // Bytes 900..1023 still hold the first owner's 0xFF: the block must remember them.
            IMemoryOwner<byte> longer = allocator.Allocate(1024);
            Assert.Equal(address, Address(longer));
            Assert.True(IsZero(longer.Memory.Span));
            longer.Dispose();
        }

        [Fact]
        public void With_clearing_off_a_reused_block_keeps_what_the_last_owner_wrote()
        {
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { ClearBuffers = false, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            IMemoryOwner<byte> first = allocator.Allocate(5000);
            Assert.True(IsZero(first.Memory.Span)); // memory fresh from the OS is zero either way
            first.Memory.Span.Fill(0x5A);
            first.Dispose();
            using IMemoryOwner<byte> second = allocator.Allocate(5000);
            Assert.Equal(5000, second.Memory.Span.Count((byte)0x5A));
        }

        [Fact]
        public void The_codec_skips_zeroing_a_buffer_it_overwrites_and_zeroes_it_when_decoding_fails()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            byte[] content = Enumerable.Range(0, 50_000).Select(i => (byte)(i * 7 % 13)).ToArray();
            byte[] frame = new byte[Frames.Lz4FrameEncoder.GetMaxEncodedLength(content.Length)];
            Assert.True(Frames.Lz4FrameEncoder.TryEncode(content, frame, out int frameLength));
            using var codec = new Lz4FastCodec();

            // Decoding writes every byte: the earlier owner's 0xFF is never cleared, only overwritten.
            Dirty(allocator, content.Length);
            IMemoryOwner<byte> decoded = allocator.Allocate(content.Length);
            Assert.Equal(content.Length, codec.Decompress(frame.AsMemory(0, frameLength), decoded.Memory));
            Assert.True(decoded.Memory.Span.SequenceEqual(content));
            decoded.Dispose();

            // A frame that fails half way leaves a zeroed buffer, not the decoded prefix next to stale bytes.
            Dirty(allocator, content.Length);
            IMemoryOwner<byte> failed = allocator.Allocate(content.Length);
            FrameErrors.Throws(() => codec.Decompress(frame.AsMemory(0, frameLength - 9), failed.Memory));
            Assert.True(IsZero(failed.Memory.Span));
            failed.Dispose();

            // Part of a buffer is not the whole of it: the rest is zeroed as usual.
            Dirty(allocator, content.Length + 100);
            IMemoryOwner<byte> larger = allocator.Allocate(content.Length + 100);
            codec.Decompress(frame.AsMemory(0, frameLength), larger.Memory.Slice(0, content.Length));
            Assert.True(larger.Memory.Span.Slice(0, content.Length).SequenceEqual(content));
            Assert.True(IsZero(larger.Memory.Span.Slice(content.Length)));
            larger.Dispose();

            static void Dirty(SlabMemoryAllocator allocator, int length)
            {
                using IMemoryOwner<byte> owner = allocator.Allocate(length);
                owner.Memory.Span.Fill(0xFF);
            }
        }

        [Fact]
        public void Threads_reaching_a_new_buffer_at_once_all_see_it_zeroed_and_keep_what_they_write()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            for (int round = 0; round < 200; round++)
            {
                using (IMemoryOwner<byte> dirty = allocator.Allocate(64 * 1024))
                    dirty.Memory.Span.Fill(0xFF);
                using IMemoryOwner<byte> owner = allocator.Allocate(64 * 1024);
                Memory<byte> memory = owner.Memory; // does not reach the memory yet
                using var start = new Barrier(2);
                bool[] zero = new bool[2];
                var threads = Enumerable.Range(0, 2).Select(t => new Thread(() =>
                {
                    start.SignalAndWait();
                    Span<byte> span = memory.Span.Slice(t * 32 * 1024, 32 * 1024);
                    zero[t] = IsZero(span);
                    span.Fill((byte)(t + 1));
                })).ToArray();
                foreach (Thread thread in threads)
                    thread.Start();
                foreach (Thread thread in threads)
                    thread.Join();
                Assert.True(zero[0] && zero[1]);
                Assert.Equal(32 * 1024, owner.Memory.Span.Slice(0, 32 * 1024).Count((byte)1));
                Assert.Equal(32 * 1024, owner.Memory.Span.Slice(32 * 1024).Count((byte)2));
            }
        }

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
                        string? problem = span.Length != length ? $"length {span.Length}, asked {length}"
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
                        mine.Add(new Held(owner, address, length, pattern));
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
            long modelInUse = held.SelectMany(h => h).Sum(h => SizeClasses.SizeOf(SizeClasses.IndexOf(h.Length)));
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

        private static IEnumerable<int> Lengths() => new[] { 1, 64, 65, 1000, 4096, 100_000, 262_144, 262_145, 1_000_000, 3_000_000 };

        /// <returns>Bytes of the dropped buffers in the group this thread's cache is filling.</returns>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long AllocateAndDrop(SlabMemoryAllocator allocator)
        {
            // Enough buffers to fill several finalizable groups (64 each); every third one is disposed, the rest dropped.
            for (int i = 0; i < 200; i++)
            {
                foreach (int length in Lengths().Take(7))
                {
                    IMemoryOwner<byte> owner = allocator.Allocate(length);
                    owner.Memory.Span.Fill(0xEE);
                    if (i % 3 == 0)
                        owner.Dispose();
                }
            }
            var last = new List<SlabMemoryOwner>();
            foreach (int length in Lengths())
            {
                var owner = (SlabMemoryOwner)allocator.Allocate(length);
                owner.Memory.Span.Fill(0xEE);
                last.Add(owner);
            }
            // Blocks of up to 64 KiB go through the cache, whose group is held while being filled; larger ones are
            // tracked by the thread's group, held weakly.
            OwnerGroup current = last[0].Group!;
            Assert.All(last.Where(o => o.Memory.Length <= 64 << 10), o => Assert.Same(current, o.Group));
            return current.UndisposedBytes();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference UseAndDropAllocator()
        {
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = TimeSpan.FromHours(1) });
            allocator.Allocate(1000).Dispose();
            return new WeakReference(allocator);
        }

        internal static bool CollectUntil(Func<bool> condition)
        {
            for (int i = 0; i < 20 && !condition(); i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            return condition();
        }

        /// <summary>Polls for something the idle timer does; the long deadline only bounds a failing test.</summary>
        private static bool WaitUntil(Func<bool> condition)
        {
            DateTime deadline = DateTime.UtcNow.AddSeconds(30);
            while (!condition() && DateTime.UtcNow < deadline)
                Thread.Sleep(10);
            return condition();
        }

        internal static unsafe long Address(IMemoryOwner<byte> owner)
        {
            fixed (byte* p = owner.Memory.Span)
                return (long)p;
        }

        internal static bool IsZero(ReadOnlySpan<byte> span) => span.IndexOfAnyExcept((byte)0) < 0;

        private sealed record Held(IMemoryOwner<byte> Owner, long Address, int Length, byte Pattern);

        /// <summary>The model's live regions, by start address: a new buffer must not overlap any of them.</summary>
        internal sealed class LiveRegions
        {
            private readonly SortedList<long, long> _regions = new();

            public string? Add(long address, int length)
            {
                lock (_regions)
                {
                    long end = address + length;
                    int i = LowerBound(address);
                    if (i < _regions.Count && _regions.Keys[i] < end)
                        return $"{length} bytes at {address:x} overlap the live buffer at {_regions.Keys[i]:x}";
                    if (i > 0 && _regions.Values[i - 1] > address)
                        return $"{length} bytes at {address:x} overlap the live buffer at {_regions.Keys[i - 1]:x}";
                    _regions.Add(address, end);
                    return null;
                }
            }

            public void Remove(long address)
            {
                lock (_regions)
                    _regions.Remove(address);
            }

            private int LowerBound(long address)
            {
                int lo = 0, hi = _regions.Count;
                while (lo < hi)
                {
                    int mid = (lo + hi) / 2;
                    if (_regions.Keys[mid] < address) lo = mid + 1; else hi = mid;
                }
                return lo;
            }
        }
    }
}
