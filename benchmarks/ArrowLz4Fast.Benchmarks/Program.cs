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
        /// Runs BenchmarkDotNet's switcher. <c>--smoke</c> runs every benchmark once, in process, so CI checks that
        /// they build and run without spending time on measurements.
        /// </summary>
        public static int Main(string[] args)
        {
            IConfig? config = null;
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
