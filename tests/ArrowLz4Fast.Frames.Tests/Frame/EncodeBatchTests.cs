using System;
using System.Collections.Generic;
using System.Linq;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameEncoder.TryEncodeBatch"/> and <see cref="Lz4FrameEncoder.StartEncodeBatch"/>: the decoded
    /// contents of the real corpus's frames, each encoded into its own range of one destination at 1, 2 and 8 threads.
    /// Every frame must be exactly what <see cref="Lz4FrameEncoder.TryEncode"/> writes for its content alone, whatever
    /// the schedule, and nothing may be written between the ranges.
    /// </summary>
    public class EncodeBatchTests
    {
        private const byte Sentinel = 0xCD;

        // Encoded when started, and on helpers with 7 work items (a degree sets only how many the job posts, so 2 takes no
        // path 8 does not); the netstandard2.0 suite runs the parallel one alone, where that build queues its work items.
        public static IEnumerable<object[]> Degrees() =>
#if NETSTANDARD_SUITE
            new[] { 8 }.Select(d => new object[] { d });
#else
            new[] { 1, 8 }.Select(d => new object[] { d });
#endif

        private static (byte[] Source, Lz4FrameBatchItem[] Items, byte[][] Expected) Batch(Lz4FrameEncoderOptions options, int count = 40)
        {
            List<byte[]> contents = DecodeBatchTests.ValidCorpusFrames().Select(f => f.Content).Where(c => c.Length > 0).Take(count).ToList();
            var source = contents.SelectMany(c => c).ToArray();
            var items = new Lz4FrameBatchItem[contents.Count];
            var expected = new byte[contents.Count][];
            int from = 0, to = 0;
            var sequential = new Lz4FrameEncoderOptions(options.BlockSize, options.Level, options.ContentChecksum, options.BlockChecksum, options.ContentSize, Lz4Parallelism.Sequential);
            for (int i = 0; i < contents.Count; i++)
            {
                int room = (int)Lz4FrameEncoder.GetMaxEncodedLength(contents[i].Length, options);
                items[i] = new Lz4FrameBatchItem(from, contents[i].Length, to, room);
                var frame = new byte[room];
                Assert.True(Lz4FrameEncoder.TryEncode(contents[i], frame, out int written, sequential));
                expected[i] = frame.AsSpan(0, written).ToArray();
                from += contents[i].Length;
                to += room + 3; // a gap that must stay untouched
            }
            return (source, items, expected);
        }

        private static void AssertFrames(byte[] destination, Lz4FrameBatchItem[] items, int[] written, byte[][] expected)
        {
            var inside = new bool[destination.Length];
            for (int i = 0; i < items.Length; i++)
            {
                Assert.Equal(expected[i].Length, written[i]);
                Assert.True(destination.AsSpan(items[i].DestinationOffset, written[i]).SequenceEqual(expected[i]), $"frame {i} differs from TryEncode's");
                for (int k = items[i].DestinationOffset; k < items[i].DestinationOffset + items[i].DestinationLength; k++)
                    inside[k] = true;
            }
            for (int k = 0; k < destination.Length; k++)
                Assert.True(inside[k] || destination[k] == Sentinel, $"byte {k} outside every range changed");
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Every_frame_is_what_TryEncode_writes(int degree)
        {
            // The fast encoder (0) and K4os' high compression (3): every level from 3 up passes through to K4os the same
            // way (Lz4BlockEncoder.Encode), so level 9, the costliest, went through no other code of ours. The level
            // reaches the job only as an option of each item's encode, so the slow one runs on the parallel schedule alone,
            // over the first ten frames (the fast one schedules all forty).
            foreach (int level in degree > 1 ? new[] { 0, 3 } : new[] { 0 })
            {
                var options = new Lz4FrameEncoderOptions(level: level, contentChecksum: true, parallelism: new Lz4Parallelism(degree, 1));
                (byte[] source, Lz4FrameBatchItem[] items, byte[][] expected) = Batch(options, count: level == 0 ? 40 : 10);
                var destination = new byte[items[^1].DestinationOffset + items[^1].DestinationLength + 16];
                destination.AsSpan().Fill(Sentinel);
                var written = new int[items.Length];
                Assert.True(Lz4FrameEncoder.TryEncodeBatch(source, destination, items, written, options));
                AssertFrames(destination, items, written, expected);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_started_batch_completes_to_the_same_frames_while_the_caller_works(int degree)
        {
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(degree, 1));
            (byte[] source, Lz4FrameBatchItem[] items, byte[][] expected) = Batch(options);
            var destination = new byte[items[^1].DestinationOffset + items[^1].DestinationLength + 16];
            destination.AsSpan().Fill(Sentinel);
            var written = new int[items.Length];
            Lz4FrameBatchEncoding encoding = Lz4FrameEncoder.StartEncodeBatch(source, destination, items, written, options);
            Assert.Equal(degree > 1, encoding.IsParallel);
            // The caller's own work meanwhile (what a writer does while the helpers compress).
            long sum = 0;
            for (int i = 0; i < 200_000; i++)
                sum += i % 7;
            Assert.True(sum > 0);
            Assert.True(encoding.Complete());
            AssertFrames(destination, items, written, expected);
            // A batch on helpers completes once; one encoded at its start only says again how it went.
            if (encoding.IsParallel)
                Assert.Throws<InvalidOperationException>(() => encoding.Complete());
            else
                Assert.True(encoding.Complete());
        }

        [Theory]
        [InlineData(2)]
        [InlineData(3)]
        [InlineData(8)]
        public void Batches_each_started_before_the_one_before_completes_give_the_same_frames(int degree)
        {
            // What IpcCompressingStream does: batch k + 1 starts after batch k, whose helpers move on to it, and batch
            // k's completion encodes items of batch k + 1 while it waits for them. Each batch has its own destination;
            // every one must hold exactly TryEncode's frames, and nothing outside their ranges.
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(degree, 1));
            (byte[] source, Lz4FrameBatchItem[] items, byte[][] expected) = Batch(options);
            const int batches = 24;
            var destinations = new byte[batches][];
            var written = new int[batches][];
            Lz4FrameBatchEncoding before = default;
            for (int k = 0; k <= batches; k++)
            {
                Lz4FrameBatchEncoding started = default;
                if (k < batches)
                {
                    destinations[k] = new byte[items[^1].DestinationOffset + items[^1].DestinationLength + 16];
                    destinations[k].AsSpan().Fill(Sentinel);
                    written[k] = new int[items.Length];
                    // Every third batch alone (a predecessor encoded in order is no batch to follow).
                    Lz4FrameEncoderOptions these = k % 3 == 2 ? new Lz4FrameEncoderOptions(parallelism: Lz4Parallelism.Sequential) : options;
                    started = Lz4FrameEncoder.StartEncodeBatchAfter(source, destinations[k], items, written[k], these, before);
                    Assert.Equal(k % 3 != 2, started.IsParallel);
                }
                if (k > 0)
                {
                    Assert.True(before.Complete());
                    AssertFrames(destinations[k - 1], items, written[k - 1], expected);
                }
                before = started;
            }
        }

        [Fact]
        public void A_batch_too_small_to_spread_is_encoded_when_it_is_started()
        {
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2)); // 256 KiB minimum
            (byte[] source, Lz4FrameBatchItem[] items, byte[][] expected) = Batch(options, count: 2);
            Assert.True(source.Length < Lz4Parallelism.DefaultMinimumLength || items.Length < 2);
            var destination = new byte[items[^1].DestinationOffset + items[^1].DestinationLength + 16];
            destination.AsSpan().Fill(Sentinel);
            var written = new int[items.Length];
            Lz4FrameBatchEncoding encoding = Lz4FrameEncoder.StartEncodeBatch(source, destination, items, written, options);
            Assert.False(encoding.IsParallel);
            AssertFrames(destination, items, written, expected); // before Complete: done at the start
            Assert.True(encoding.Complete());
        }

        [Fact]
        public void A_frame_that_does_not_fit_is_reported_with_length_0()
        {
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2, 1));
            (byte[] source, Lz4FrameBatchItem[] items, _) = Batch(options, count: 6);
            // The third item gets a range one byte long.
            items[2] = new Lz4FrameBatchItem(items[2].SourceOffset, items[2].SourceLength, items[2].DestinationOffset, 1);
            var destination = new byte[items[^1].DestinationOffset + items[^1].DestinationLength];
            var written = new int[items.Length];
            Assert.False(Lz4FrameEncoder.StartEncodeBatch(source, destination, items, written, options).Complete());
            Assert.Equal(0, written[2]);
            Assert.All(written.Where((_, i) => i != 2), w => Assert.True(w > 0));
        }

        [Fact]
        public void A_default_value_is_not_a_started_batch()
        {
            Assert.Throws<InvalidOperationException>(() => default(Lz4FrameBatchEncoding).Complete());
        }
    }
}
