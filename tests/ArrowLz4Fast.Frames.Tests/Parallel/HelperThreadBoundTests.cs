using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A process that looks like a 64-core machine (<c>DOTNET_PROCESSOR_COUNT=64</c>) gets at most the helper bound of
    /// threads during parallel decode and encode at every core, and its helpers exit once idle. The work runs in a
    /// child process (<see cref="HelperThreadChild"/>), whose thread count no other test moves.
    /// </summary>
    public class HelperThreadBoundTests
    {
        /// <summary>
        /// Threads other than helpers and thread-pool workers the runtime may add while the child works: tiered
        /// compilation, the thread pool's gate thread and timer thread.
        /// </summary>
        private const int RuntimeSlack = 4;

        /// <summary>
        /// Thread-pool workers the calls may keep busy: each job (the child runs a decode job and an encode job) queues
        /// at most <see cref="Lz4ParallelTiming.MaxWorkItemsPerCall"/> items when the helpers are busy, and an item
        /// queued by one job may still be waiting while the other queues its own.
        /// </summary>
        private const int PoolBound = 2 * Lz4ParallelTiming.MaxWorkItemsPerCall;

        private readonly ITestOutputHelper _output;

        public HelperThreadBoundTests(ITestOutputHelper output) => _output = output;

        [Fact]
        public void A_64_core_process_has_at_most_the_bound_of_helpers_and_they_exit_when_idle()
        {
            Dictionary<string, long> seen = RunChild(processors: 64);
            int bound = Lz4ParallelTiming.MaxHelperThreads;
            Assert.Equal(64, seen["processors"]);
            long poolThreads = seen["maxPoolThreads"] - seen["baselinePoolThreads"];
            Assert.True(poolThreads <= PoolBound, $"{poolThreads} thread-pool workers over the baseline; the bound is {PoolBound}");
            Assert.True(seen["maxThreads"] - seen["baselineThreads"] <= bound + PoolBound + RuntimeSlack, $"{seen["maxThreads"]} threads, {seen["baselineThreads"]} before the work");
            // Once idle, what is left over the baseline is the thread pool's (its workers retire on the runtime's own timeout).
            long afterIdle = seen["threadsAfterIdle"] - seen["poolThreadsAfterIdle"] - (seen["baselineThreads"] - seen["baselinePoolThreads"]);
            Assert.True(afterIdle <= RuntimeSlack, $"{seen["threadsAfterIdle"]} threads after idle ({seen["poolThreadsAfterIdle"]} pool workers), {seen["baselineThreads"]} before the work");
            if (seen["namesReadable"] == 1)
            {
                // Every sampled thread that is neither a helper nor a thread-pool worker was there before the work, or is the runtime's.
                long others = seen["maxOtherThreads"] - (seen["baselineThreads"] - seen["baselinePoolThreads"]);
                Assert.True(others <= RuntimeSlack, $"{others} threads besides helpers and pool workers over the baseline of {seen["baselineThreads"]}");
                Assert.True(seen["maxHelpers"] >= 1, "no helper thread was seen: the calls did not go parallel");
                Assert.True(seen["maxHelpers"] <= bound, $"{seen["maxHelpers"]} helper threads");
                Assert.Equal(0, seen["helpersAfterIdle"]);
                Assert.True(seen["idleMilliseconds"] >= Lz4ParallelTiming.HelperIdleExitMilliseconds / 2, $"helpers exited after {seen["idleMilliseconds"]} ms idle");
                // Calls after the exit start helpers again (the work matched the sequential bytes, or the child failed).
                Assert.InRange(seen["helpersAfterRestart"], 1, bound);
            }
        }

        private Dictionary<string, long> RunChild(int processors)
        {
            string assembly = typeof(HelperThreadChild).Assembly.Location;
            var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            start.ArgumentList.Add("exec");
            start.ArgumentList.Add(assembly);
            start.ArgumentList.Add(HelperThreadChild.Switch);
            start.Environment["DOTNET_PROCESSOR_COUNT"] = processors.ToString();
            using Process child = Process.Start(start)!;
            var stderr = child.StandardError.ReadToEndAsync();
            string stdout = child.StandardOutput.ReadToEnd();
            Assert.True(child.WaitForExit(120_000), "the child did not finish");
            _output.WriteLine(stdout);
            _output.WriteLine(stderr.Result);
            Assert.True(child.ExitCode == 0, $"exit code {child.ExitCode}: {stderr.Result}");
            return stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries)
                .Select(line => line.Trim().Split('='))
                .Where(parts => parts.Length == 2)
                .ToDictionary(parts => parts[0], parts => long.Parse(parts[1]));
        }
    }
}
