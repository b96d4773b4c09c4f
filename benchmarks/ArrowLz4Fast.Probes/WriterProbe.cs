using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--writer-probe</c>: writes the order-lines table with the official codec and with ArrowLz4Fast at several
    /// block sizes and minimum parallel lengths, in alternation (so every variant sees the same load), with the package's
    /// allocator; prints the median and minimum of each and the ratio to the official codec. For choosing defaults;
    /// the committed numbers come from ParallelWriterBenchmarks.
    /// </summary>
    internal static class WriterProbe
    {
        public const string Switch = "--writer-probe";

        public static int Run()
        {
            var batches = SyntheticTable.Batches();
            var output = new MemoryStream(64 << 20);
            var allocator = Allocators.Create(Allocators.Slab);
            var variants = new List<(string Name, ICompressionCodecFactory Factory)>
            {
                ("official", new CompressionCodecFactory()),
                ("1 MiB blocks, 1 core", Fast(1 << 20, 1, 1 << 20)),
                ("1 MiB blocks, 2 cores, min 1 MiB", Fast(1 << 20, 2, 1 << 20)),
                ("256 KiB blocks, 1 core", Fast(256 << 10, 1, 1 << 20)),
                ("256 KiB blocks, 2 cores, min 512 KiB", Fast(256 << 10, 2, 512 << 10)),
                ("256 KiB blocks, 2 cores, min 256 KiB", Fast(256 << 10, 2, 256 << 10)),
                ("64 KiB blocks, 2 cores, min 256 KiB", Fast(64 << 10, 2, 256 << 10)),
                ("64 KiB blocks, 2 cores, min 512 KiB", Fast(64 << 10, 2, 512 << 10)),
            };
            // ARROWLZ4FAST_WRITER_PROBE_ONLY=<substring>: only the official codec and the variants whose name has it,
            // so a profiler sees one variant (e.g. "256 KiB blocks, 2 cores, min 256").
            string? only = Environment.GetEnvironmentVariable("ARROWLZ4FAST_WRITER_PROBE_ONLY");
            if (!string.IsNullOrEmpty(only))
                variants.RemoveAll(v => v.Name != "official" && v.Name.IndexOf(only, StringComparison.Ordinal) < 0);
            var times = new List<double>[variants.Count];
            var sizes = new long[variants.Count];
            for (int k = 0; k < variants.Count; k++)
                times[k] = new List<double>();
            for (int round = -3; round < 25; round++)
            {
                for (int k = 0; k < variants.Count; k++)
                {
                    output.SetLength(0);
                    long start = Stopwatch.GetTimestamp();
                    SyntheticTable.WriteStream(batches, variants[k].Factory, output, allocator: allocator);
                    if (round >= 0)
                        times[k].Add((Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency);
                    sizes[k] = output.Length;
                }
            }
            foreach (List<double> t in times)
                t.Sort();
            double official = times[0][times[0].Count / 2];
            for (int k = 0; k < variants.Count; k++)
            {
                double median = times[k][times[k].Count / 2];
                Console.WriteLine($"{variants[k].Name,-40} median {median,7:0.00} ms (min {times[k][0],7:0.00}), {official / median:0.00}x official, {sizes[k] / 1048576.0:0.00} MiB");
            }
            if (string.IsNullOrEmpty(only))
                ReadBack(batches, allocator);
            return 0;
        }

        /// <summary>Reads the table written with 256 KiB blocks back at 1 core and at 2 cores with 1 MiB and 512 KiB minimums.</summary>
        private static void ReadBack(IReadOnlyList<Apache.Arrow.RecordBatch> batches, Apache.Arrow.Memory.MemoryAllocator allocator)
        {
            foreach (int blockSize in new[] { 256 << 10, 1 << 20 })
            {
                byte[] stream = SyntheticTable.WriteStream(batches, Fast(blockSize, 1, 1 << 20));
                var variants = new List<(string Name, ICompressionCodecFactory Factory)>
                {
                    ("1 core", Fast(blockSize, 1, 1 << 20)),
                    ("2 cores, min 1 MiB", Fast(blockSize, 2, 1 << 20)),
                    ("2 cores, min 512 KiB", Fast(blockSize, 2, 512 << 10)),
                    ("2 cores, min 256 KiB", Fast(blockSize, 2, 256 << 10)),
                };
                var times = new List<double>[variants.Count];
                for (int k = 0; k < variants.Count; k++)
                    times[k] = new List<double>();
                for (int round = -3; round < 40; round++)
                {
                    for (int k = 0; k < variants.Count; k++)
                    {
                        long start = Stopwatch.GetTimestamp();
                        ReplayBenchmarks.ReadAll(new MemoryStream(stream, writable: false), variants[k].Factory, allocator);
                        if (round >= 0)
                            times[k].Add((Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency);
                    }
                }
                foreach (List<double> t in times)
                    t.Sort();
                double one = times[0][times[0].Count / 2];
                for (int k = 0; k < variants.Count; k++)
                {
                    double median = times[k][times[k].Count / 2];
                    Console.WriteLine($"read, {blockSize >> 10} KiB blocks, {variants[k].Name,-22} median {median,7:0.00} ms (min {times[k][0],7:0.00}), {median / one:0.00} of 1 core");
                }
            }
        }

        private static Lz4FastCodecFactory Fast(int blockSize, int degree, int minimum) =>
            new(new Lz4FastOptions { BlockSize = blockSize, MaxDegreeOfParallelism = degree, MinimumParallelLength = minimum });
    }
}
