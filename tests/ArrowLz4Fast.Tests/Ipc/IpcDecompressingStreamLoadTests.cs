#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Allocation per buffer, concurrent readers on a saturated pool, and the documented usage.</summary>
    [Collection(SerialTests.Name)]
    public class IpcDecompressingStreamLoadTests
    {
        private static readonly TimeSpan HangDeadline = TimeSpan.FromMinutes(2);
        private readonly ITestOutputHelper _output;

        public IpcDecompressingStreamLoadTests(ITestOutputHelper output) => _output = output;

        private static byte[] Columns(int columns, int rows)
        {
            var fields = new Schema.Builder();
            var arrays = new IArrowArray[columns];
            for (int c = 0; c < columns; c++)
            {
                int column = c;
                fields.Field(f => f.Name($"c{column}").DataType(Int32Type.Default).Nullable(false));
                var builder = new Int32Array.Builder();
                for (int r = 0; r < rows; r++)
                    builder.Append((r * 7) + (r % 13 == 0 ? c : 0));
                arrays[c] = builder.Build();
            }
            var batch = new RecordBatch(fields.Build(), arrays, rows);
            return IpcWriter.Write(new[] { batch, batch }, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = 65536 }), fileFormat: false);
        }

        /// <summary>
        /// Draining a stream allocates a constant per stream, whatever the number of buffers: 10 and 400 buffers a batch,
        /// the same bytes, sequential and parallel.
        /// </summary>
        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void Allocation_does_not_grow_with_the_number_of_buffers(int degree)
        {
            byte[] few = Columns(5, 80_000);
            byte[] many = Columns(200, 2_000);
            byte[] destination = new byte[4 << 20];
            long Measure(byte[] bytes)
            {
                // Warm: the pool's arrays and the parallel job exist after the first drain.
                Drain(bytes, destination, degree);
                long before = GC.GetAllocatedBytesForCurrentThread();
                Drain(bytes, destination, degree);
                return GC.GetAllocatedBytesForCurrentThread() - before;
            }
            long fewBytes = Measure(few);
            long manyBytes = Measure(many);
            _output.WriteLine($"degree {degree}: 10 buffers a batch {fewBytes} B, 400 buffers a batch {manyBytes} B per stream");
            Assert.True(manyBytes - fewBytes < 400, $"{manyBytes - fewBytes} more bytes for 390 more buffers a batch");
            Assert.True(manyBytes < 4096, $"{manyBytes} bytes to drain one stream");
        }

        private static void Drain(byte[] bytes, byte[] destination, int degree)
        {
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(degree, 1));
            while (stream.Read(destination.AsSpan()) > 0)
            {
            }
        }

        [Fact]
        public async Task Many_concurrent_readers_on_a_saturated_pool_all_complete()
        {
            string[] files = { "ipc/pyarrow/nested_dict.arrows", "ipc/rust/strings.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/strings.arrows" };
            var inputs = files.Select(f => File.ReadAllBytes(Corpus.Committed(f))).ToArray();
            var expected = files.Select(f => ArrowData.ReadAll(Corpus.Committed(f), new OfficialFactory())).ToArray();
            ThreadPool.GetMaxThreads(out int maxWorkers, out int maxIo);
            ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
            var release = new ManualResetEventSlim(false);
            int cap = Math.Max(Environment.ProcessorCount, minWorkers);
            Assert.True(ThreadPool.SetMaxThreads(cap, maxIo));
            try
            {
                // Blockers hold most pool threads, so helpers queue behind them; readers run on dedicated threads.
                for (int i = 0; i < cap - 1; i++)
                    ThreadPool.UnsafeQueueUserWorkItem(_ => release.Wait(), null);
                int done = 0;
                var threads = Enumerable.Range(0, 24).Select(i => new Thread(() =>
                {
                    int k = i % files.Length;
                    var batches = IpcWrapped.ReadAll(inputs[k], IpcWrapped.Options(8, 1), SlabMemoryAllocator.Shared, null!);
                    ArrowData.AssertSame(expected[k], batches);
                    ArrowData.DisposeAll(batches);
                    Interlocked.Increment(ref done);
                })).ToList();
                threads.ForEach(t => t.Start());
                foreach (Thread t in threads)
                    Assert.True(t.Join(HangDeadline), "a reader waited for a helper that never started");
                Assert.Equal(threads.Count, done);
            }
            finally
            {
                release.Set();
                ThreadPool.SetMaxThreads(maxWorkers, maxIo);
            }

            // And on a busy pool: readers as pool tasks themselves.
            Task[] tasks = Enumerable.Range(0, 32).Select(i => Task.Run(() =>
            {
                int k = i % files.Length;
                var batches = IpcWrapped.ReadAll(inputs[k], IpcWrapped.Options(-1, 1), SlabMemoryAllocator.Shared, null!);
                ArrowData.AssertSame(expected[k], batches);
                ArrowData.DisposeAll(batches);
            })).ToArray();
            await Task.WhenAll(tasks).WaitAsync(HangDeadline);
        }

        /// <summary>The example of docs/parallel-read.md, as written there.</summary>
        [Fact]
        public void The_documented_example_reads_every_batch()
        {
            string path = Corpus.Committed("ipc/pyarrow/strings.arrows");
            long rows = 0;
            // --- docs/parallel-read.md: usage ---
            using (FileStream file = File.OpenRead(path))
            using (var reader = new ArrowStreamReader(new IpcDecompressingStream(file), SlabMemoryAllocator.Shared))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    using (batch)
                        rows += batch.Length;
                }
            }
            // --- end ---
            Assert.Equal(ArrowData.ReadAll(path, new OfficialFactory()).Sum(b => (long)b.Length), rows);
        }
    }
}
#endif
