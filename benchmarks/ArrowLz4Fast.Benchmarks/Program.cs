using System;
using System.Linq;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace ArrowLz4Fast.Benchmarks
{
    public static class Program
    {
        private static readonly string[] AllBenchmarks = { "--filter", "*" };

        /// <summary>
        /// Arrow's default allocator takes every buffer from malloc. glibc's adaptive mmap threshold and heap trimming
        /// then decide, differently from one process to the next, whether a read reuses memory or page-faults fresh
        /// memory in: the same benchmark measured 60 or 145 ms per write in consecutive processes. Fixed thresholds
        /// make runs comparable; they change nothing for the pooled-allocator cases.
        /// </summary>
        private static readonly EnvironmentVariable[] MallocSettings =
        {
            new("MALLOC_MMAP_THRESHOLD_", "33554432"),
            new("MALLOC_TRIM_THRESHOLD_", "1073741824"),
        };

        /// <summary>The job the committed results come from: enough iterations for stable ratios on two noisy cores.</summary>
        private static readonly Job MeasurementJob = Job.Default
            .WithWarmupCount(4)
            .WithIterationCount(12)
            .WithEnvironmentVariables(MallocSettings)
            .WithId("measure");

        /// <summary>
        /// Runs BenchmarkDotNet's switcher. <c>--smoke</c> runs every benchmark once, in process, so CI checks that
        /// they build and run without spending time on measurements.
        /// </summary>
        public static int Main(string[] args)
        {
            IConfig config = DefaultConfig.Instance.AddJob(MeasurementJob);
            if (args.Contains("--smoke"))
            {
                args = args.Where(a => a != "--smoke").ToArray();
                if (!args.Contains("--filter"))
                    args = args.Concat(AllBenchmarks).ToArray();
                config = DefaultConfig.Instance
                    .AddJob(Job.Dry.WithToolchain(InProcessEmitToolchain.Instance))
                    .WithOptions(ConfigOptions.DisableOptimizationsValidator);
            }
            var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config);
            bool failed = summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success));
            if (failed)
                Console.Error.WriteLine("benchmarks: at least one benchmark failed");
            return failed ? 1 : 0;
        }
    }
}
