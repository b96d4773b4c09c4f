using System;
using System.Collections.Generic;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Zero allocation per call on the calling thread. Serial: at the default options some corpus buffers go parallel,
    /// and when other tests keep the helper threads busy the work item goes to the thread pool, whose queue may
    /// allocate a segment on the caller (ParallelProcessWideTests bounds that path per call).
    /// </summary>
    [Collection(SerialTests.Name)]
    public class AllocationTests
    {
        [Fact]
        public void The_direct_path_allocates_nothing_per_decompress()
        {
            List<(byte[] Frame, int Length, string Sha256)> buffers = CorpusBuffers.AllProfiles();
            Assert.Contains(buffers, b => CorpusBuffers.IsLinkedMultiBlock(b.Frame));
            byte[][] destinations = buffers.Select(b => new byte[b.Length]).ToArray();
            using var codec = new Lz4FastCodec();
            // Steady state is what counts: let tiered compilation finish promoting the decode loop first, so JIT work
            // on a loaded machine does not land inside the measured calls.
            var warmUp = System.Diagnostics.Stopwatch.StartNew();
            while (warmUp.ElapsedMilliseconds < 1500)
            {
                for (int i = 0; i < buffers.Count; i++)
                    codec.Decompress(buffers[i].Frame, destinations[i]);
            }
            System.Threading.Thread.Sleep(300);

            var allocations = new List<string>();
            for (int round = 0; round < 20; round++)
            {
                for (int i = 0; i < buffers.Count; i++)
                {
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    codec.Decompress(buffers[i].Frame, destinations[i]);
                    long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                    if (allocated != 0)
                        allocations.Add($"round {round} buffer {i} ({buffers[i].Frame.Length} -> {buffers[i].Length} bytes): {allocated} B");
                }
            }

            Assert.True(allocations.Count == 0, string.Join("; ", allocations));
            for (int i = 0; i < buffers.Count; i++)
                Assert.Equal(buffers[i].Sha256, Hex.Sha256(destinations[i]));
        }

        [Theory]
        [InlineData(0)]
        [InlineData(9)]
        public void The_writer_allocates_nothing_per_frame(int level)
        {
            byte[] payload = TestData.Mixed(3_000_000, 21);
            var frame = new byte[payload.Length];
            var options = new Lz4FrameEncoderOptions(level: level, contentChecksum: true, blockChecksum: true);
            // The sequential path, where the promise is 0 bytes. At the default options this 3 MB buffer (12 blocks of
            // 256 KiB) is compressed on two cores, and a work item that goes to the thread pool (the helper thread is
            // still busy) can make the pool's queue allocate a segment on the caller (8,104 B seen once in a CI run);
            // ParallelThreadingTests bounds that path per call instead.
            using var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1 }, compressionLevel: level);
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out _, options));
            Assert.True(codec.TryCompress(payload, frame, out _));

            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int round = 0; round < 3; round++)
            {
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out _, options));
                Assert.True(codec.TryCompress(payload, frame, out _));
            }
            Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        }
    }
}
