using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--encode-probe PRODUCER</c>: the TryCompress calls of one producer's workload (ParallelCodecSteadyBenchmarks),
    /// one pass at 1 core and one at 2 cores in alternation, with the time split between the calls that may go
    /// parallel (1 MiB or more) and the rest, so a regression shows where it comes from.
    /// </summary>
    internal static class EncodeProbe
    {
        public const string Switch = "--encode-probe";

        public static int Run(string[] args)
        {
            int at = Array.IndexOf(args, Switch);
            string producer = at + 1 < args.Length ? args[at + 1] : "rust";
            var work = new ProducerCodecWorkload(producer);
            byte[][] buffers = work.Buffers;
            byte[][] output = buffers.Select(b => new byte[b.Length]).ToArray();
            for (int i = 0; i < buffers.Length; i++)
            {
                if (buffers[i].Length >= 1 << 20)
                {
                    bool fits = work.One.TryCompress(buffers[i], output[i], out int written);
                    Console.WriteLine($"  buffer {i}: {buffers[i].Length:N0} bytes -> {(fits ? written.ToString("N0", System.Globalization.CultureInfo.InvariantCulture) : "does not fit")}");
                }
            }
            var big = new List<double>[2] { new(), new() };
            var small = new List<double>[2] { new(), new() };
            var codecs = new[] { work.One, work.Two };
            for (int round = -5; round < 60; round++)
            {
                for (int k = 0; k < 2; k++)
                {
                    double b = 0, s = 0;
                    for (int i = 0; i < buffers.Length; i++)
                    {
                        long start = Stopwatch.GetTimestamp();
                        codecs[k].TryCompress(buffers[i], output[i], out _);
                        double us = (Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency;
                        if (buffers[i].Length >= 1 << 20) b += us; else s += us;
                    }
                    if (round >= 0) { big[k].Add(b); small[k].Add(s); }
                }
            }
            double Med(List<double> l) { l.Sort(); return l[l.Count / 2]; }
            Console.WriteLine($"{producer}: {buffers.Count(b => b.Length >= 1 << 20)} big / {buffers.Length} buffers; median per pass, 1 core -> 2 cores");
            Console.WriteLine($"  big   {Med(big[0]),9:0} us -> {Med(big[1]),9:0} us ({Med(big[1]) / Med(big[0]):0.00})");
            Console.WriteLine($"  small {Med(small[0]),9:0} us -> {Med(small[1]),9:0} us ({Med(small[1]) / Med(small[0]):0.00})");
            return 0;
        }
    }
}
