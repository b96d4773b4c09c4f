using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--alloc-probe STREAM [--rounds N] [--loop ALLOCATOR SECONDS]</c>: whole reads of one corpus stream with
    /// ArrowLz4Fast, the allocators alternating read by read in one process, so a noisy machine slows them alike. It
    /// prints each allocator's median and minimum of N rounds of 200 reads, the slab's ratio to arraypool, and the
    /// managed bytes each read allocates. <c>--loop</c> reads with one allocator for the given time instead, for a
    /// sampling profiler (perf with DOTNET_PerfMapEnabled=1) to attribute the per-buffer cost.
    /// </summary>
    internal static class AllocatorProbe
    {
        public const string Switch = "--alloc-probe";

        public static int Run(string[] args)
        {
            int at = Array.IndexOf(args, Switch);
            string name = at + 1 < args.Length ? args[at + 1] : "pyarrow/tiny_batches";
            byte[] bytes = ProducerStreams.LoadStream(name);
            var factory = new Lz4FastCodecFactory();

            int loop = Array.IndexOf(args, "--loop");
            if (loop >= 0)
            {
                MemoryAllocator only = Allocators.Create(args[loop + 1]);
                double seconds = double.Parse(args[loop + 2], CultureInfo.InvariantCulture);
                long reads = 0;
                var clock = Stopwatch.StartNew();
                while (clock.Elapsed.TotalSeconds < seconds)
                {
                    ReplayBenchmarks.ReadAll(new MemoryStream(bytes, writable: false), factory, only);
                    reads++;
                }
                Console.WriteLine($"{args[loop + 1]}: {reads} reads, {clock.Elapsed.TotalMilliseconds * 1e3 / reads:0.0} us per read");
                return 0;
            }

            int roundsAt = Array.IndexOf(args, "--rounds");
            int rounds = roundsAt >= 0 ? int.Parse(args[roundsAt + 1], CultureInfo.InvariantCulture) : 15;
            string[] names = { Allocators.Native, Allocators.ArrayPool, Allocators.Slab, Allocators.SlabNoClear };
            MemoryAllocator[] allocators = names.Select(Allocators.Create).ToArray();
            var times = new double[names.Length][];
            var allocated = new long[names.Length];
            for (int i = 0; i < names.Length; i++)
                times[i] = new double[rounds];
            const int ReadsPerRound = 200;
            for (int round = -2; round < rounds; round++)
            {
                for (int i = 0; i < names.Length; i++)
                {
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    long start = Stopwatch.GetTimestamp();
                    for (int r = 0; r < ReadsPerRound; r++)
                        ReplayBenchmarks.ReadAll(new MemoryStream(bytes, writable: false), factory, allocators[i]);
                    double us = (Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency / ReadsPerRound;
                    if (round >= 0)
                    {
                        times[i][round] = us;
                        allocated[i] = (GC.GetAllocatedBytesForCurrentThread() - before) / ReadsPerRound;
                    }
                }
            }
            double Median(double[] values) => values.OrderBy(v => v).ElementAt(values.Length / 2);
            for (int i = 0; i < names.Length; i++)
                Console.WriteLine($"{names[i],-14} median {Median(times[i]),8:0.0} us  min {times[i].Min(),8:0.0} us  {allocated[i],9:N0} B/read");
            double[] ratios = times[2].Zip(times[1], (s, a) => s / a).ToArray();
            Console.WriteLine($"slab / arraypool per round: median {Median(ratios):0.000}, min {ratios.Min():0.000}, max {ratios.Max():0.000}");
            return 0;
        }
    }
}
