using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Parallel encode must write exactly the sequential encoder's bytes, or return false exactly when it does, for
    /// every payload shape, size, block size, level, checksum setting and destination length.
    /// </summary>
    public class ParallelEncodeTests
    {
        // Every block size with every shape, the checksums on and off in turn: each block size and each shape still
        // meets both settings (the checksums are computed apart from the schedule, over the bytes written).
        public static IEnumerable<object[]> Cases()
        {
            int b = 0;
            foreach (int blockSize in new[] { 65536, 262144, 1048576, 4194304 })
            {
                int s = 0;
                foreach (string shape in new[] { "mixed", "zeros", "random", "int64", "mostly-random" })
                {
                    bool checksums = (b + s) % 2 == 1;
                    yield return new object[] { blockSize, shape, checksums, checksums };
                    s++;
                }
                b++;
            }
        }

        [Theory]
        [MemberData(nameof(Cases))]
        public void Parallel_encode_writes_the_sequential_bytes(int blockSize, string shape, bool contentChecksum, bool blockChecksum)
        {
            int[] lengths = blockSize <= 1 << 20 ? new[] { blockSize + 1, 2 * blockSize + 12345, 5 * blockSize - 3 } : new[] { blockSize + 1, 2 * blockSize + 12345 };
            // Sources of one block from 256 KiB up are written as equal pieces (2, 4, 8 or 16): exactly one block, one
            // byte less, and (for blocks over 256 KiB) odd lengths between, whose pieces are rounded up to 64 bytes.
            if (blockSize >= Lz4FrameEncoder.MinimumPieceLength)
                lengths = lengths.Concat(new[] { blockSize, blockSize - 1, Lz4FrameEncoder.MinimumPieceLength + 4097, 1024 * 1024 + 4097, 2 * 1024 * 1024 + 5 }.Where(l => l <= blockSize)).Distinct().ToArray();
            foreach (int length in lengths)
            {
                byte[] payload = TestData.Shaped(shape, length, length ^ blockSize);
                foreach (int level in blockSize == 65536 ? new[] { 0, 2 } : new[] { 0 })
                    AssertSameAsSequential(payload, new Lz4FrameEncoderOptions(blockSize, level, contentChecksum, blockChecksum));
            }
        }

        [Fact]
        public void Helper_threads_compress_into_their_own_buffer_and_the_frame_is_the_sequential_one()
        {
            if (Environment.ProcessorCount < 2)
                return; // no helper thread on one core: the caller compresses every block
            // Growing block sizes, so a helper's buffer grows between calls (64 KiB blocks, then 1 MiB, then 4 MiB).
            foreach (int blockSize in new[] { 65536, 1 << 20, 4 << 20 })
            {
                // At least 4 MiB a call: a parked helper can take a millisecond to wake, longer than four 64 KiB blocks take.
                byte[] payload = TestData.Mixed(Math.Max(4 * blockSize, 4 << 20) + 777, blockSize);
                var sequential = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum: true, blockChecksum: true, contentSize: false, Lz4Parallelism.Sequential);
                var parallel = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum: true, blockChecksum: true, contentSize: false, new Lz4Parallelism(2, 1));
                var expected = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, sequential)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, expected, out int expectedLength, sequential));
                using var events = new FramesEvents();
                // A helper takes a block whenever it gets a core in time; on two idle cores that is nearly every call.
                int calls = events.CallUntilAHelperWorks(call =>
                {
                    var actual = new GuardedBuffer(expected.Length);
                    Assert.True(Lz4FrameEncoder.TryEncode(payload, actual.Span, out int actualLength, parallel));
                    actual.AssertGuardsIntact();
                    Assert.True(expected.AsSpan(0, expectedLength).SequenceEqual(actual.Span.Slice(0, actualLength)), $"{blockSize}-byte blocks, call {call}");
                });
                Assert.True(events.HelperBlocksForThisThread() > 0, $"no helper compressed a block of {blockSize} bytes into its own buffer in {calls} calls over a minute");
            }
        }

        [Fact]
        public void Parallel_encode_at_hc_levels_writes_the_sequential_bytes()
        {
            byte[] payload = TestData.Mixed(700_000, 9);
            foreach (int level in new[] { 3, 9 })
                AssertSameAsSequential(payload, new Lz4FrameEncoderOptions(65536, level, true, false));
        }

        /// <summary>
        /// Encodes sequentially and in parallel (2 and 8 threads) into destinations of many lengths:
        /// the worst case, the source length (Arrow's writer), the exact frame length, and lengths that cut the frame in
        /// its last blocks, its middle and its header.
        /// </summary>
        internal static void AssertSameAsSequential(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var sequentialOptions = new Lz4FrameEncoderOptions(options.BlockSize, options.Level, options.ContentChecksum, options.BlockChecksum, options.ContentSize, Lz4Parallelism.Sequential);
            int max = (int)Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options);
            var full = new byte[max];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, full, out int frameLength, sequentialOptions));
            var lengths = new SortedSet<int> { max, payload.Length, frameLength, frameLength - 1, frameLength + 1, frameLength - 5, frameLength - options.BlockSize / 2, frameLength / 2, 6, 11 };
            foreach (int length in lengths.Where(l => l >= 0 && l <= max))
            {
                var expected = new GuardedBuffer(length);
                bool expectedFits = Lz4FrameEncoder.TryEncode(payload, expected.Span, out int expectedWritten, sequentialOptions);
                foreach (int degree in new[] { 2, 8 })
                {
                    var actual = new GuardedBuffer(length);
                    var parallelOptions = new Lz4FrameEncoderOptions(options.BlockSize, options.Level, options.ContentChecksum, options.BlockChecksum, options.ContentSize, new Lz4Parallelism(degree, 1));
                    bool actualFits = Lz4FrameEncoder.TryEncode(payload, actual.Span, out int actualWritten, parallelOptions);
                    actual.AssertGuardsIntact();
                    string context = $"{degree} threads, destination {length} of frame {frameLength}";
                    Assert.True(expectedFits == actualFits, context);
                    Assert.True(expectedWritten == actualWritten, context);
                    Assert.True(expected.Span.Slice(0, expectedWritten).SequenceEqual(actual.Span.Slice(0, actualWritten)), context);
                }
            }
        }
    }
}
