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
    public partial class SlabMemoryAllocatorTests
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
    }
}
