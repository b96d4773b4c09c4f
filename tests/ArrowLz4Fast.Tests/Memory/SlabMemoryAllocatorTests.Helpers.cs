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
    /// <summary>Helpers: lengths, addresses, zero checks, the live-region model, and waiting for the GC or the idle timer.</summary>
    public partial class SlabMemoryAllocatorTests
    {
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

        private sealed record Held(IMemoryOwner<byte> Owner, long Address, int Length, byte Pattern, long BlockBytes);

        /// <summary>Bytes of the block the allocator handed to <paramref name="owner"/> (its class's size).</summary>
        private static long BlockBytes(IMemoryOwner<byte> owner) => ((SlabMemoryOwner)owner).BlockBytes;

        /// <summary>
        /// Whether a request of <paramref name="length"/> bytes may hold a block of <paramref name="blockBytes"/>: its size
        /// class, or, above the classes of shared slabs, a free block of a larger class up to twice its class's size.
        /// </summary>
        private static bool BlockFits(int length, long blockBytes)
        {
            int requested = SizeClasses.IndexOf(length);
            long requestedBytes = SizeClasses.SizeOf(requested);
            if (blockBytes == requestedBytes)
                return true;
            return requested > SlabMemoryAllocator.MaxSharedClass
                && blockBytes > requestedBytes
                && blockBytes <= 2 * requestedBytes
                && SizeClasses.SizeOf(SizeClasses.IndexOf((int)blockBytes)) == blockBytes;
        }

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
