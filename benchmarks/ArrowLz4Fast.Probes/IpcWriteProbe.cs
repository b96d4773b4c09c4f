using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--ipc-write-probe [shape] [rounds]</c>: IpcParallelWriteBenchmarks' cases on one of its shapes (8k, 64k, 512k,
    /// 8m, tiny), interleaved round by round so every case sees the same load; prints each case's median and the ratios
    /// the targets are stated in. For finding where the stream loses on a noisy machine; the committed numbers
    /// come from the benchmark.
    /// </summary>
    internal static class IpcWriteProbe
    {
        public const string Switch = "--ipc-write-probe";

        public static int Run(string[] args)
        {
            int at = System.Array.IndexOf(args, Switch);
            string shape = args.Length > at + 1 ? args[at + 1] : "64k";
            if (args.Length > at + 2 && args[at + 2] == "episodes")
                return Episodes(shape, args.Length > at + 3 ? int.Parse(args[at + 3], System.Globalization.CultureInfo.InvariantCulture) : 120);
            if (args.Length > at + 2 && args[at + 2] == "rebuild")
                return Rebuilds(shape, args.Length > at + 3 ? int.Parse(args[at + 3], System.Globalization.CultureInfo.InvariantCulture) : 12);
            int rounds = args.Length > at + 2 ? int.Parse(args[at + 2], System.Globalization.CultureInfo.InvariantCulture) : 30;
            List<RecordBatch> batches = Build(shape);
            var output = new MemoryStream(256 << 20);
            var all = new Lz4FastOptions { MaxDegreeOfParallelism = -1 };
            var one = new Lz4FastOptions { MaxDegreeOfParallelism = 1 };
            (byte[][] bodies, Lz4FrameBatchItem[][] items) = WriteShapes.Bodies(batches);
            byte[][] frames = WriteShapes.Frames(bodies, items, out int[] written);
            var twoThreads = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2, minimumLength: 1));
            var names = new[] { "codec, all", "codec, one", "stream, all", "stream, one", "file codec, all", "file stream, all", "uncompressed", "compress only, 2" };
            var cases = new List<Func<long>>
            {
                () => Codec(batches, output, all, false),
                () => Codec(batches, output, one, false),
                () => Stream(batches, output, all, false),
                () => Stream(batches, output, one, false),
                () => Codec(batches, output, all, true),
                () => Stream(batches, output, all, true),
                () =>
                {
                    output.SetLength(0);
                    using (var writer = new ArrowStreamWriter(output, batches[0].Schema, leaveOpen: true))
                    {
                        foreach (RecordBatch batch in batches)
                            writer.WriteRecordBatch(batch);
                        writer.WriteEnd();
                    }
                    return output.Length;
                },
                () =>
                {
                    long total = 0;
                    for (int i = 0; i < bodies.Length; i++)
                    {
                        Lz4FrameEncoder.TryEncodeBatch(bodies[i], frames[i], items[i], written, twoThreads);
                        total += written[0];
                    }
                    return total;
                },
            };
            // ARROWLZ4FAST_IPC_WRITE_PROBE_LOOP=<case index>: that case alone for 12 s, for a sampling profiler.
            string? loop = Environment.GetEnvironmentVariable("ARROWLZ4FAST_IPC_WRITE_PROBE_LOOP");
            if (!string.IsNullOrEmpty(loop))
            {
                int index = int.Parse(loop, System.Globalization.CultureInfo.InvariantCulture);
                (int runs, double each) = ProbeTiming.Loop(cases[index]);
                Console.WriteLine($"{shape,-5} {names[index],-18} {runs} runs, {each:0.000} ms each");
                return 0;
            }
            double[] m = ProbeTiming.InterleavedMedians(cases, rounds);
            for (int i = 0; i < names.Length; i++)
                Console.WriteLine($"{shape,-5} {names[i],-18} median {m[i],8:0.000} ms");
            double ceiling = m[6] + m[7];
            Console.WriteLine($"{shape,-5} RATIOS stream gain {m[0] / m[2]:0.00}x  file gain {m[4] / m[5]:0.00}x  ceiling share {ceiling / m[2]:0.00} (file {ceiling / m[5]:0.00})  one core {m[1] / m[3]:0.00}x");
            return 0;
        }

        private static List<RecordBatch> Build(string shape) => shape switch
        {
            "8k" => WriteShapes.Batches(batches: 20, rows: 1024, columns: 200),
            "64k" => WriteShapes.Batches(batches: 32, rows: 8192, columns: 16),
            "512k" => WriteShapes.Batches(batches: 4, rows: 65536, columns: 16),
            "8m" => WriteShapes.Batches(batches: 1, rows: 1 << 20, columns: 4),
            _ => WriteShapes.Corpus("ipc/java/tiny_batches.arrows"),
        };

        /// <summary>
        /// <c>--ipc-write-probe SHAPE rebuild [BUILDS]</c>: as BenchmarkDotNet's per-case setup, the batches and the output
        /// are made again for each build, then the stream and the codec path (all cores) run interleaved; one line per build.
        /// </summary>
        private static int Rebuilds(string shape, int builds)
        {
            var all = new Lz4FastOptions { MaxDegreeOfParallelism = -1 };
            var kept = new List<List<RecordBatch>>();
            for (int b = 0; b < builds; b++)
            {
                List<RecordBatch> batches = Build(shape);
                kept.Add(batches);
                var output = new MemoryStream(256 << 20);
                double[] m = ProbeTiming.InterleavedMedians(new List<Func<long>>
                {
                    () => Codec(batches, output, all, false),
                    () => Stream(batches, output, all, false),
                    () => Stream(batches, output, all, true),
                }, 12);
                Console.WriteLine($"{shape,-5} build {b,2}: codec {m[0],8:0.000}  stream {m[1],8:0.000}  file {m[2],8:0.000} ms  stream gain {m[0] / m[1]:0.00}x  file gain {m[0] / m[2]:0.00}x");
            }
            GC.KeepAlive(kept);
            return 0;
        }

        /// <summary>
        /// <c>--ipc-write-probe SHAPE episodes [SECONDS]</c>: round after round, each vCPU's single-core compression speed
        /// (a thread pinned to each in turn), then the stream at all cores and the two-thread compress-only ceiling part;
        /// one line per round, then the rounds grouped by how much slower the slower vCPU was. Tells whether the stream's
        /// slow rounds are rounds in which one vCPU is slow (the machine) or not (the code).
        /// </summary>
        private static int Episodes(string shape, int seconds)
        {
            List<RecordBatch> batches = Build(shape);
            var output = new MemoryStream(256 << 20);
            var all = new Lz4FastOptions { MaxDegreeOfParallelism = -1 };
            (byte[][] bodies, Lz4FrameBatchItem[][] items) = WriteShapes.Bodies(batches);
            byte[][] frames = WriteShapes.Frames(bodies, items, out int[] written);
            var twoThreads = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2, minimumLength: 1));
            var rows = new List<(double Asymmetry, double Stream, double Ceiling)>();
            var clock = System.Diagnostics.Stopwatch.StartNew();
            int round = 0;
            while (clock.Elapsed.TotalSeconds < seconds)
            {
                double[] vcpu = Harness.VcpuSpeed.Medians();
                long at = System.Diagnostics.Stopwatch.GetTimestamp();
                Stream(batches, output, all, false);
                double stream = System.Diagnostics.Stopwatch.GetElapsedTime(at).TotalMilliseconds;
                at = System.Diagnostics.Stopwatch.GetTimestamp();
                for (int i = 0; i < bodies.Length; i++)
                    Lz4FrameEncoder.TryEncodeBatch(bodies[i], frames[i], items[i], written, twoThreads);
                double ceiling = System.Diagnostics.Stopwatch.GetElapsedTime(at).TotalMilliseconds;
                double asymmetry = Math.Max(vcpu[0], vcpu[1]) / Math.Min(vcpu[0], vcpu[1]);
                if (round++ >= 10)
                    rows.Add((asymmetry, stream, ceiling));
                Console.WriteLine($"{clock.Elapsed.TotalSeconds,6:0.0} s  vCPU0 {vcpu[0],5:0} us vCPU1 {vcpu[1],5:0} us (x{asymmetry:0.00})  stream {stream,7:0.00} ms  compress-only {ceiling,7:0.00} ms  stream / compress-only {stream / ceiling:0.00}");
            }
            foreach ((double low, double high) in new[] { (1.0, 1.1), (1.1, 1.25), (1.25, 9.0) })
            {
                var group = rows.FindAll(r => r.Asymmetry >= low && r.Asymmetry < high);
                if (group.Count == 0)
                    continue;
                double Median(Func<(double Asymmetry, double Stream, double Ceiling), double> f)
                {
                    var v = group.ConvertAll(r => f(r));
                    v.Sort();
                    return v[v.Count / 2];
                }
                Console.WriteLine($"{shape,-5} slower vCPU x{low:0.00}-{high:0.00}: {group.Count,4} rounds  stream {Median(r => r.Stream),7:0.00} ms  compress-only {Median(r => r.Ceiling),7:0.00} ms  stream / compress-only {Median(r => r.Stream / r.Ceiling):0.00}");
            }
            return 0;
        }

        private static long Codec(List<RecordBatch> batches, MemoryStream output, Lz4FastOptions options, bool file)
        {
            output.SetLength(0);
            var ipc = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory(options) };
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(output, batches[0].Schema, leaveOpen: true, ipc)
                : new ArrowStreamWriter(output, batches[0].Schema, leaveOpen: true, ipc))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.Length;
        }

        private static long Stream(List<RecordBatch> batches, MemoryStream output, Lz4FastOptions options, bool file)
        {
            output.SetLength(0);
            using (var compressing = new IpcCompressingStream(output, options, leaveOpen: true))
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(compressing, batches[0].Schema, leaveOpen: true)
                : new ArrowStreamWriter(compressing, batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.Length;
        }
    }
}
