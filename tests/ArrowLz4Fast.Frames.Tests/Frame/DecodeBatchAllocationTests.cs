using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Hash.xxHash;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatch"/> allocates a small constant per call, nothing per item. Serial: with
    /// other tests keeping the helper threads busy, a work item goes to the thread pool, whose queue may allocate a
    /// segment on the caller.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class DecodeBatchAllocationTests
    {
        [Fact]
        public void A_parallel_batch_allocates_a_small_constant_not_per_item()
        {
            byte[] words = DecodeBatchTests.ValidCorpusFrames().First(f => f.Name.EndsWith("cli_words1m_B6I_L9_bx_size.lz4", StringComparison.Ordinal)).Content;
            var payloads = new List<byte[]>();
            var frames = new List<byte[]>();
            for (int i = 0; i < 400; i++)
            {
                byte[] payload = words.AsSpan(i * 2311, 1000 + i * 7 % 3000).ToArray();
                payloads.Add(payload);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written));
                frames.Add(frame.AsSpan(0, written).ToArray());
            }
            byte[] source = frames.SelectMany(f => f).ToArray();
            var items = new Lz4FrameBatchItem[400];
            int sourceOffset = 0, destinationOffset = 0;
            for (int i = 0; i < items.Length; i++)
            {
                items[i] = new Lz4FrameBatchItem(sourceOffset, frames[i].Length, destinationOffset, payloads[i].Length);
                sourceOffset += frames[i].Length;
                destinationOffset += payloads[i].Length + 8;
            }
            var destination = new byte[destinationOffset];
            var options = new Lz4FrameDecoderOptions(true, new Lz4Parallelism(2, 1));
            Lz4FrameBatchItem[] few = items.AsSpan(0, 40).ToArray();

            var warmUp = System.Diagnostics.Stopwatch.StartNew();
            while (warmUp.ElapsedMilliseconds < 1000)
            {
                Lz4FrameDecoder.DecodeBatch(source, destination, items, options);
                Lz4FrameDecoder.DecodeBatch(source, destination, few, options);
            }
            System.Threading.Thread.Sleep(100);

            var measured40 = new List<long>();
            var measured400 = new List<long>();
            for (int round = 0; round < 10; round++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                Lz4FrameDecoder.DecodeBatch(source, destination, few, options);
                measured40.Add(GC.GetAllocatedBytesForCurrentThread() - before);
                before = GC.GetAllocatedBytesForCurrentThread();
                Lz4FrameDecoder.DecodeBatch(source, destination, items, options);
                measured400.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            }

            for (int i = 0; i < items.Length; i++)
                Assert.True(payloads[i].AsSpan().SequenceEqual(destination.AsSpan(items[i].DestinationOffset, items[i].DestinationLength)), $"item {i}");
            // The least of ten calls: a thread-pool queue segment allocated once in a while is not what this bounds.
            long of40 = measured40.Min(), of400 = measured400.Min();
            string all = $"40 items: {string.Join(", ", measured40)} B; 400 items: {string.Join(", ", measured400)} B";
            Assert.True(of40 < 2048, all);
            Assert.True(of400 < 2048, all);
            Assert.True(of400 <= of40 + 1024, all);
        }
    }
}
