using System;
using System.Collections.Generic;
using System.Threading;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using static ArrowLz4Fast.Tests.ParallelThreadingTests;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Parallel-call tests that touch the whole process: one blocks every thread-pool thread and lowers the pool's
    /// maximum, the other reads the process-wide allocation counter. Serial so that other tests neither wait on the
    /// blocked pool nor show up in the count.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class ParallelProcessWideTests
    {
        private readonly ITestOutputHelper _output;

        public ParallelProcessWideTests(ITestOutputHelper output) => _output = output;

        [Fact]
        public void Calls_complete_on_the_calling_thread_alone_when_no_pool_thread_is_free()
        {
            var works = new[] { new Work(65536, 1), new Work(1048576, 2) };
            ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
            ThreadPool.GetMaxThreads(out int maxWorkers, out int maxIo);
            int cap = Math.Max(Environment.ProcessorCount, minWorkers);
            // Not disposed: blockers still queued when the test ends run later and must find it usable.
            var release = new ManualResetEventSlim(false);
            int started = 0;
            int blockers = ThreadPool.ThreadCount + cap + 4;
            Assert.True(ThreadPool.SetMaxThreads(cap, maxIo));
            try
            {
                // Every pool thread there is (and any the pool may still add up to the cap) blocks until released.
                for (int i = 0; i < blockers; i++)
                {
                    ThreadPool.UnsafeQueueUserWorkItem(_ =>
                    {
                        Interlocked.Increment(ref started);
                        release.Wait();
                    }, null);
                }
                SpinWait.SpinUntil(() => ThreadPool.PendingWorkItemCount > 0 && Volatile.Read(ref started) >= Math.Min(cap, ThreadPool.ThreadCount), 5000);
                long pendingBefore = ThreadPool.PendingWorkItemCount;

                Exception? failure = null;
                int calls = 0;
                var caller = new Thread(() =>
                {
                    try
                    {
                        for (int round = 0; round < 5; round++)
                        {
                            foreach (Work work in works)
                            {
                                work.RunOnce(degree: 4);
                                calls++;
                            }
                        }
                    }
                    catch (Exception e)
                    {
                        failure = e;
                    }
                });
                caller.Start();
                Assert.True(caller.Join(HangDeadline), "a parallel call waited for a pool thread that was never free");
                Assert.Null(failure);
                Assert.Equal(10, calls);
                Assert.False(release.IsSet);
                _output.WriteLine($"{Volatile.Read(ref started)} blockers running, {pendingBefore} work items queued before the calls, {ThreadPool.PendingWorkItemCount} after");
            }
            finally
            {
                release.Set();
                ThreadPool.SetMaxThreads(maxWorkers, maxIo);
                ThreadPool.SetMinThreads(minWorkers, minIo);
            }
        }

        [Fact]
        public void A_parallel_call_allocates_a_small_constant_and_nothing_per_block()
        {
            // 46 and 183 blocks of 64 KiB: the allocation must not grow with the block count.
            var works = new[] { new Work(65536, 7), new Work(65536, 8) };
            byte[] big = TestData.Mixed(12_000_000, 9);
            var bigOptions = new Lz4FrameEncoderOptions(65536, 0, true, false);
            var bigFrame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(big.Length, bigOptions)];
            Assert.True(Lz4FrameEncoder.TryEncode(big, bigFrame, out int bigLength, bigOptions));
            using var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = 65536 });

            var results = new List<string>();
            foreach ((byte[] payload, byte[] frame) in new[] { (works[0].Payload, works[0].Frame), (big, bigFrame.AsSpan(0, bigLength).ToArray()) })
            {
                var output = new byte[payload.Length];
                var encoded = new byte[payload.Length];
                for (int i = 0; i < 20; i++)
                {
                    codec.Decompress(frame, output);
                    codec.TryCompress(payload, encoded, out _);
                }
                Thread.Sleep(100);

                const int Calls = 100;
                long thread = GC.GetAllocatedBytesForCurrentThread();
                long total = GC.GetTotalAllocatedBytes(precise: true);
                for (int i = 0; i < Calls; i++)
                    codec.Decompress(frame, output);
                long decodeThread = GC.GetAllocatedBytesForCurrentThread() - thread;
                long decodeTotal = GC.GetTotalAllocatedBytes(precise: true) - total;

                thread = GC.GetAllocatedBytesForCurrentThread();
                total = GC.GetTotalAllocatedBytes(precise: true);
                for (int i = 0; i < Calls; i++)
                    codec.TryCompress(payload, encoded, out _);
                long encodeThread = GC.GetAllocatedBytesForCurrentThread() - thread;
                long encodeTotal = GC.GetTotalAllocatedBytes(precise: true) - total;

                string line = $"{payload.Length} bytes, {(payload.Length + 65535) / 65536} blocks: decode {decodeThread / Calls} B on the caller, {decodeTotal / Calls} B in the process per call; encode {encodeThread / Calls} B / {encodeTotal / Calls} B";
                results.Add(line);
                _output.WriteLine(line);
                Assert.True(decodeThread / Calls <= 256 && encodeThread / Calls <= 256, line);
                // The process-wide figure includes whatever else the runtime allocates meanwhile; per block it must be nothing.
                Assert.True(decodeTotal / Calls <= 1024 && encodeTotal / Calls <= 1024, line);
            }
        }
    }
}
