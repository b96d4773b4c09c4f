using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Parallel calls never depend on a pool thread being free: the caller claims blocks too and never waits for a
    /// queued work item that has not started. And the managed allocation on the sequential path: none. No timing is
    /// asserted; the deadlines below only turn a hang into a failure.
    /// </summary>
    public class ParallelThreadingTests
    {
        internal static readonly TimeSpan HangDeadline = TimeSpan.FromMinutes(2);

        [Fact]
        public async Task Many_concurrent_parallel_calls_on_a_saturated_pool_all_complete_with_the_sequential_result()
        {
            var works = new[] { new ParallelWork(65536, 3), new ParallelWork(262144, 4), new ParallelWork(1048576, 5) };
            int done = 0;
            Task[] tasks = Enumerable.Range(0, 48).Select(i => Task.Run(() =>
            {
                for (int round = 0; round < 3; round++)
                    works[(i + round) % works.Length].RunOnce(degree: i % 2 == 0 ? -1 : 8);
                Interlocked.Increment(ref done);
            })).ToArray();
            await Task.WhenAll(tasks).WaitAsync(HangDeadline);
            Assert.Equal(tasks.Length, done);
        }
    }
}
