using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--flight-server-probe DATA [CASE]</c>: FlightDoGetBenchmarks' cases on one data set, interleaved (medians of 30
    /// rounds), or with CASE one of them looped for 12 s for a sampling profiler (perf with DOTNET_PerfMapEnabled=1):
    /// where the server interceptor's time goes when one process both compresses and decodes (issue #33).
    /// </summary>
    internal static class FlightServerProbe
    {
        public const string Switch = "--flight-server-probe";

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            var bench = new FlightDoGetBenchmarks { Data = rest.Length > 0 ? rest[0] : "synthetic" };
            bench.Setup();
            try
            {
                var cases = new List<(string Name, Func<long> Run)>
                {
                    ("Uncompressed", () => bench.Uncompressed().GetAwaiter().GetResult()),
                    ("Lz4Flight", () => bench.Lz4Flight().GetAwaiter().GetResult()),
                    ("Lz4FlightPrecompressed", () => bench.Lz4FlightPrecompressed().GetAwaiter().GetResult()),
                    ("ServerCompressOnly", bench.ServerCompressOnly),
                };
                if (rest.Length > 1)
                {
                    (string name, Func<long> run) = cases.Single(c => c.Name == rest[1]);
                    (int runs, double ms) = ProbeTiming.Loop(run);
                    Console.WriteLine($"{bench.Data} {name}: {runs} runs, {ms:0.0} ms each");
                    return 0;
                }
                // Beside each median, the process's CPU time per run of the case alone (20 runs): on 2 cores a case cannot
                // take less than half of it, whatever overlaps.
                double[] medians = ProbeTiming.InterleavedMedians(cases.Select(c => c.Run).ToList(), 30);
                for (int i = 0; i < cases.Count; i++)
                {
                    TimeSpan before = Process.GetCurrentProcess().TotalProcessorTime;
                    for (int k = 0; k < 20; k++)
                        cases[i].Run();
                    double cpu = (Process.GetCurrentProcess().TotalProcessorTime - before).TotalMilliseconds / 20;
                    Console.WriteLine($"{bench.Data} {cases[i].Name,-24} {medians[i],8:0.0} ms, CPU {cpu,8:0.0} ms per run");
                }
                return 0;
            }
            finally
            {
                bench.Cleanup();
            }
        }
    }
}
