using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Threading;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// The outcome of a run of the IPC modes (--ipc, --ipc-file, --ipc-write), mutant by mutant from several threads:
    /// a mutant over its time or memory budget fails, a failed mutant is saved and named, and the most time and memory
    /// one mutant took are kept for the summary.
    /// </summary>
    internal sealed class FuzzTally
    {
        private readonly ConcurrentQueue<string> _findings = new ConcurrentQueue<string>();
        private readonly TimeSpan _timeBudget;
        private readonly long _allocationBudget;
        private readonly string _through;
        private int _failures;
        private int _rejected;
        private int _accepted;
        private long _maxTicks;
        private long _maxAllocated;

        /// <param name="through">What the budgets time, as the messages say it after the figure (" through the stream"), or empty.</param>
        public FuzzTally(TimeSpan timeBudget, long allocationBudget, string through)
        {
            _timeBudget = timeBudget;
            _allocationBudget = allocationBudget;
            _through = through;
        }

        public int Failures => _failures;

        public int Rejected => _rejected;

        public int Accepted => _accepted;

        public TimeSpan MaxTime => TimeSpan.FromTicks(Interlocked.Read(ref _maxTicks));

        public long MaxAllocated => Interlocked.Read(ref _maxAllocated);

        /// <summary>
        /// Counts one mutant: <paramref name="problem"/> (or a budget it went over) is a failure, whose mutant goes to
        /// <paramref name="file"/> in the run's output folder and whose <paramref name="finding"/> line is kept.
        /// </summary>
        public void Record(string? problem, bool wasRejected, TimeSpan took, long allocated, FuzzOptions options, string file, byte[] mutant, string finding)
        {
            IpcFuzz.InterlockedMax(ref _maxTicks, took.Ticks);
            IpcFuzz.InterlockedMax(ref _maxAllocated, allocated);
            if (problem is null && took > _timeBudget)
                problem = $"over the time budget: {took.TotalMilliseconds:F0} ms{_through} (budget {_timeBudget.TotalMilliseconds:F0} ms)";
            if (problem is null && allocated > _allocationBudget)
                problem = $"over the memory budget: {allocated:N0} bytes allocated{_through} (budget {_allocationBudget:N0})";
            if (problem is not null)
            {
                Interlocked.Increment(ref _failures);
                if (options.OutDir is not null)
                {
                    Directory.CreateDirectory(options.OutDir);
                    File.WriteAllBytes(Path.Combine(options.OutDir, file), mutant);
                }
                _findings.Enqueue($"{finding} {problem}");
            }
            else if (wasRejected)
            {
                Interlocked.Increment(ref _rejected);
            }
            else
            {
                Interlocked.Increment(ref _accepted);
            }
        }

        /// <summary>Prints the first findings, as many as <paramref name="options"/> asks for.</summary>
        public void PrintFindings(FuzzOptions options)
        {
            foreach (string finding in _findings.Take(options.Examples * 10))
                Console.WriteLine(finding);
        }
    }
}
