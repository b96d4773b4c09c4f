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
            var works = new[] { new ParallelWork(65536, 1), new ParallelWork(1048576, 2) };
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
                            foreach (ParallelWork work in works)
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
    }
}
