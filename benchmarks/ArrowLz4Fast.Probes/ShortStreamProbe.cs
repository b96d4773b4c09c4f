using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--short-stream-probe [ROUNDS] [--reads N]</c>: ShortStreamBenchmarks' one-batch streams read through the codec
    /// path and through IpcDecompressingStream, with the schema cached (one version read over and over) and new to the
    /// thread (eight versions whose schemas differ in a byte, read in turn), interleaved; each sample is N reads, medians
    /// of ROUNDS samples, and the bytes each path allocates per stream. <c>--short-stream-probe loop SHAPE codec|wrapper
    /// [cached]</c> reads one case for 12 s, new to the thread unless <c>cached</c>, for a sampling profiler; <c>parts
    /// SHAPE</c> times the parts of the wrapper's work alone (ShortStreamParts).
    /// </summary>
    internal static class ShortStreamProbe
    {
        public const string Switch = "--short-stream-probe";

        private static readonly string[] s_shapes = { "tiny, 1 batch", "strings, 500 rows", "strings, 2000 rows" };

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            if (rest.Length > 0 && rest[0] == "loop")
                return Loop(rest);
            if (rest.Length > 0 && rest[0] == "parts")
                return Parts(rest);
            int rounds = rest.Length > 0 && int.TryParse(rest[0], out int r) && r > 0 ? r : 40;
            int reads = Harness.ProbeOptions.Option(args, "--reads", 200);

            var names = new List<string>();
            var cases = new List<Func<long>>();
            foreach (string shape in s_shapes)
            {
                byte[] bytes = ShortStreamBenchmarks.Shape(shape);
                byte[][] cached = { bytes };
                byte[][] renamed = ShortStreamBenchmarks.Versions(bytes, ShortStreamBenchmarks.NewVersions);
                foreach ((string schema, byte[][] versions) in new[] { ("cached", cached), ("new", renamed) })
                {
                    names.Add($"{shape} ({bytes.Length} B), {schema}, codec");
                    cases.Add(() => ReadMany(versions, reads, wrapper: false));
                    names.Add($"{shape} ({bytes.Length} B), {schema}, wrapper");
                    cases.Add(() => ReadMany(versions, reads, wrapper: true));
                }
            }
            long[] allocated = cases.Select(c => PerStreamAllocation(c, reads)).ToArray();
            double[] medians = ProbeTiming.InterleavedMedians(cases, rounds);
            for (int i = 0; i < cases.Count; i++)
            {
                double each = medians[i] * 1000 / reads;
                string ratio = i % 2 == 1 ? $"   codec / wrapper {medians[i - 1] / medians[i]:F3}" : string.Empty;
                Console.WriteLine($"{names[i],-50} {each,8:F2} us {allocated[i],7} B/stream{ratio}");
            }
            return 0;
        }

        // Each part of the wrapper's work on one shape, alone: samples of 2,000 runs, interleaved, medians of 60.
        private static int Parts(string[] rest)
        {
            string shape = rest.Length > 1 ? rest[1] : "strings, 500 rows";
            byte[] bytes = ShortStreamBenchmarks.Shape(shape);
            IReadOnlyList<(string Name, Action Run)> parts = Harness.ShortStreamParts.Of(bytes, ShortStreamBenchmarks.Versions(bytes, ShortStreamBenchmarks.NewVersions));
            const int Runs = 2000;
            double[] medians = ProbeTiming.InterleavedMedians(parts.Select(p => (Func<long>)(() =>
            {
                for (int i = 0; i < Runs; i++)
                    p.Run();
                return 0;
            })).ToList(), 60);
            for (int i = 0; i < parts.Count; i++)
                Console.WriteLine($"{shape}: {parts[i].Name,-24} {medians[i] * 1e6 / Runs,8:F0} ns");
            return 0;
        }

        private static int Loop(string[] rest)
        {
            string shape = rest.Length > 1 ? rest[1] : "strings, 500 rows";
            bool wrapper = rest.Length <= 2 || rest[2] != "codec";
            bool cached = rest.Contains("cached");
            byte[] bytes = ShortStreamBenchmarks.Shape(shape);
            byte[][] versions = cached ? new[] { bytes } : ShortStreamBenchmarks.Versions(bytes, ShortStreamBenchmarks.NewVersions);
            (int runs, double each) = ProbeTiming.Loop(() => ReadMany(versions, 1000, wrapper));
            Console.WriteLine($"{shape} {(wrapper ? "wrapper" : "codec")} {(cached ? "cached" : "new")}: {runs * 1000} reads, {each:F3} ms per 1000");
            return 0;
        }

        private static readonly Lz4FastCodecFactory s_codec = new Lz4FastCodecFactory();

        private static long ReadMany(byte[][] versions, int reads, bool wrapper)
        {
            long rows = 0;
            for (int i = 0; i < reads; i++)
            {
                byte[] bytes = versions[i % versions.Length];
                rows += wrapper
                    ? ProbeTiming.ReadAll(new IpcDecompressingStream(new MemoryStream(bytes, writable: false)), null)
                    : ProbeTiming.ReadAll(new MemoryStream(bytes, writable: false), s_codec);
            }
            return rows;
        }

        // Warm first (pools, thread caches, the JIT), then one sample's bytes over its reads.
        private static long PerStreamAllocation(Func<long> run, int reads)
        {
            run();
            run();
            long before = GC.GetAllocatedBytesForCurrentThread();
            run();
            return (GC.GetAllocatedBytesForCurrentThread() - before) / reads;
        }
    }
}
