using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--random-access-probe [index] [rounds] [--loop]</c>: RandomAccessBenchmarks' file (100 batches of 2,048 rows x 200
    /// columns), batch <i>index</i>, two columns: <see cref="Lz4ArrowFileReader"/> opened once, opened for each read, and
    /// the decode-only ceiling (<see cref="RandomAccessCeiling"/>), one read each per round, interleaved (medians). A
    /// rough guide on a shared machine; the benchmark gives the numbers. <c>--loop</c> reads with the reader opened once
    /// for 12 s instead, for a sampling profiler.
    /// </summary>
    internal static class RandomAccessProbe
    {
        public const string Switch = "--random-access-probe";

        private static readonly string[] TwoColumns = { "c004_4", "c015_7" };

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            int index = rest.Length > 0 && int.TryParse(rest[0], out int i) ? i : 99;
            int rounds = rest.Length > 1 && int.TryParse(rest[1], out int r) && r > 0 ? r : 2000;
            string path = Path.Combine(Path.GetTempPath(), $"arrowlz4fast-random-access-probe-{Environment.ProcessId}.feather");
            List<RecordBatch> distinct = WideTable.Batches(10, 2048);
            File.WriteAllBytes(path, WideTable.Write(Enumerable.Range(0, 100).Select(b => distinct[b % 10]).ToList(), file: true));
            foreach (RecordBatch batch in distinct)
                batch.Dispose();
            try
            {
                var options = new Lz4FastOptions { Projection = IpcProjection.ByName(TwoColumns) };
                using var opened = new Lz4ArrowFileReader(path, options, SlabMemoryAllocator.Shared);
                using var ceiling = new RandomAccessCeiling(path, index, WideTable.Schema, TwoColumns);
                if (rest.Contains("--loop"))
                {
                    (int runs, double ms) = ProbeTiming.Loop(() => Read(opened, index));
                    Console.WriteLine($"batch {index}, opened once: {runs} reads, {ms * 1000:F1} us each");
                    return 0;
                }
                var cases = new (string Name, Func<long> Run)[]
                {
                    ("opened once", () => Read(opened, index)),
                    ("opened for each read", () =>
                    {
                        using var reader = new Lz4ArrowFileReader(path, options, SlabMemoryAllocator.Shared);
                        return Read(reader, index);
                    }),
                    ("ceiling", ceiling.Read),
                };
                double[] medians = ProbeTiming.InterleavedMedians(cases.Select(c => c.Run).ToList(), rounds);
                for (int c = 0; c < cases.Length; c++)
                    Console.WriteLine($"batch {index}, 2 of 200 columns ({ceiling.CompressedBytes:N0} compressed bytes): {cases[c].Name,-22} {medians[c] * 1000,9:F1} us   ceiling / this {medians[2] / medians[c]:F2}");
            }
            finally
            {
                File.Delete(path);
            }
            return 0;
        }

        private static long Read(Lz4ArrowFileReader reader, int index)
        {
            using RecordBatch batch = reader.ReadRecordBatch(index);
            return batch.Length;
        }
    }
}
