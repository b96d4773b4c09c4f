using System;
using System.Linq;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace ArrowLz4Fast.Benchmarks
{
    public static class Program
    {
        /// <summary>
        /// Arrow's default allocator takes every buffer from malloc. glibc's adaptive mmap threshold and heap trimming
        /// then decide, differently from one process to the next, whether a read reuses memory or page-faults fresh
        /// memory in: the same benchmark measured 60 or 145 ms per write in consecutive processes. Fixed thresholds
        /// make such runs comparable with each other, but they are not what a user's process runs with, so the
        /// headline job keeps glibc's defaults and this one is only added, as job "fixed-malloc", by
        /// <c>--fixed-malloc</c>. They change nothing for the pooled allocators.
        /// </summary>
        private static readonly EnvironmentVariable[] FixedMallocSettings =
        {
            new("MALLOC_MMAP_THRESHOLD_", "33554432"),
            new("MALLOC_TRIM_THRESHOLD_", "1073741824"),
        };

        /// <summary>The job the committed results come from: enough iterations for stable ratios on two noisy cores.</summary>
        private static readonly Job MeasurementJob = Job.Default
            .WithWarmupCount(4)
            .WithIterationCount(12)
            .WithId("measure");

        /// <summary>
        /// Runs BenchmarkDotNet's switcher. <c>--smoke</c> runs every benchmark method once, in process, with its first
        /// parameters (or, with <c>--filter</c>, every case it selects once), so CI checks that they build and run
        /// without spending time on measurements. The one-off probes live in ArrowLz4Fast.Probes.
        /// </summary>
        public static int Main(string[] args)
        {
            Job measurement = MeasurementJob;
            if (args.Contains("--in-process"))
            {
                // The measurement job in this process: runs under `ip netns exec` or `taskset` (docs/flight.md) need
                // no child build, and the namespace or CPU set applies to everything measured.
                args = args.Where(a => a != "--in-process").ToArray();
                measurement = MeasurementJob.WithToolchain(InProcessEmitToolchain.Instance);
            }
            IConfig config = DefaultConfig.Instance.AddJob(measurement);
            if (args.Contains("--fixed-malloc"))
            {
                args = args.Where(a => a != "--fixed-malloc").ToArray();
                config = config.AddJob(measurement.WithEnvironmentVariables(FixedMallocSettings).WithId("fixed-malloc"));
            }
            Summary[] summaries;
            if (args.Contains("--smoke"))
            {
                args = args.Where(a => a != "--smoke").ToArray();
                config = DefaultConfig.Instance
                    .AddJob(Job.Dry.WithToolchain(InProcessEmitToolchain.Instance))
                    .WithOptions(ConfigOptions.DisableOptimizationsValidator);
                // Without a filter: every benchmark method once, with its first parameters (the others run the same
                // code on other data), so that CI's check stays minutes short of running every case.
                summaries = args.Contains("--filter")
                    ? BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config).ToArray()
                    : BenchmarkRunner.Run(EveryMethodOnce(config));
            }
            else
            {
                summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config).ToArray();
            }
            bool failed = summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success));
            if (failed)
                Console.Error.WriteLine("benchmarks: at least one benchmark failed");
            return failed ? 1 : 0;
        }

        /// <summary>Each benchmark class of this assembly with one case per method: its first parameter combination.</summary>
        private static BenchmarkRunInfo[] EveryMethodOnce(IConfig config) =>
            typeof(Program).Assembly.GetTypes()
                .Where(t => t.IsPublic && !t.IsAbstract && t.GetMethods().Any(m => m.IsDefined(typeof(BenchmarkAttribute), false)))
                .OrderBy(t => t.FullName, StringComparer.Ordinal)
                .Select(t => BenchmarkConverter.TypeToBenchmarks(t, config))
                .Select(info => new BenchmarkRunInfo(
                    info.BenchmarksCases.GroupBy(c => c.Descriptor.WorkloadMethod).Select(g => g.First()).ToArray(), info.Type, info.Config))
                .ToArray();
    }
}
