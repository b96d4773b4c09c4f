using System;
using System.IO;
using System.IO.Compression;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Managed allocation of <see cref="Lz4FrameStream"/> decoding: a small constant per stream, nothing per block.</summary>
    [Collection(SerialTests.Name)]
    public class FrameStreamAllocationTests
    {
        [Fact]
        public void Allocation_per_stream_does_not_grow_with_the_block_count()
        {
            byte[] payload = TestData.Mixed(8 << 20, seed: 3);
            byte[] oneBlock = TestData.Encode(payload.AsSpan(0, 60_000).ToArray(), new Lz4FrameEncoderOptions(blockSize: 64 * 1024, contentChecksum: true));
            byte[] manyBlocks = TestData.Encode(payload, new Lz4FrameEncoderOptions(blockSize: 64 * 1024, contentChecksum: true));
            byte[] linked = TestData.K4osFrame(payload, new LZ4EncoderSettings { ChainBlocks = true, BlockSize = (64 << 10) }, contentSize: false);
            byte[] big = TestData.Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20));
            var buffer = new byte[100_000];

            long one = Allocated(oneBlock, buffer);
            foreach (byte[] frame in new[] { manyBlocks, linked, big })
            {
                long many = Allocated(frame, buffer);
                Assert.InRange(many, 0, 1024);
                Assert.InRange(many - one, -64, 64);
            }
        }

        [Fact]
        public void Allocation_per_stream_with_read_ahead_does_not_grow_with_the_block_count()
        {
            byte[] payload = TestData.Mixed(16 << 20, seed: 4);
            var options = new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(2, 1));
            foreach (int blockSize in new[] { 64 * 1024, 4 << 20 })
            {
                var encoderOptions = new Lz4FrameEncoderOptions(blockSize: blockSize, contentChecksum: true, blockChecksum: true);
                byte[] half = TestData.Encode(payload.AsSpan(0, payload.Length / 2).ToArray(), encoderOptions);
                byte[] whole = TestData.Encode(payload, encoderOptions);
                foreach (int read in new[] { 100_000, 4 << 20 })
                {
                    var buffer = new byte[read];
                    long few = Allocated(half, buffer, options);
                    long many = Allocated(whole, buffer, options);
                    Assert.InRange(many, 0, 1024);
                    Assert.InRange(many - few, -64, 64);
                }
            }
        }

        private static long Allocated(byte[] frame, byte[] buffer, Lz4FrameDecoderOptions options = default)
        {
            // The first rounds fill ArrayPool.Shared; the least of the rest is the steady state (a test on another thread
            // that empties the pool's shared stacks would otherwise show up here as an array allocation).
            var inner = new MemoryStream(frame);
            long least = long.MaxValue;
            for (int round = 0; round < 6; round++)
            {
                inner.Position = 0;
                long before = GC.GetAllocatedBytesForCurrentThread();
                using (var stream = new Lz4FrameStream(inner, options, leaveOpen: true))
                {
                    while (stream.Read(buffer, 0, buffer.Length) > 0)
                    {
                    }
                }
                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                if (round >= 2)
                    least = Math.Min(least, allocated);
            }
            return least;
        }

    }
}
