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
            int rounds = args.Length > at + 2 ? int.Parse(args[at + 2], System.Globalization.CultureInfo.InvariantCulture) : 30;
            List<RecordBatch> batches = shape switch
            {
                "8k" => WriteShapes.Batches(batches: 20, rows: 1024, columns: 200),
                "64k" => WriteShapes.Batches(batches: 32, rows: 8192, columns: 16),
                "512k" => WriteShapes.Batches(batches: 4, rows: 65536, columns: 16),
                "8m" => WriteShapes.Batches(batches: 1, rows: 1 << 20, columns: 4),
                _ => WriteShapes.Corpus("ipc/java/tiny_batches.arrows"),
            };
            var output = new MemoryStream(256 << 20);
            var all = new Lz4FastOptions { MaxDegreeOfParallelism = -1 };
            var one = new Lz4FastOptions { MaxDegreeOfParallelism = 1 };
            (byte[][] bodies, Lz4FrameBatchItem[][] items) = WriteShapes.Bodies(batches);
            var frames = new byte[bodies.Length][];
            int most = 1;
            for (int i = 0; i < bodies.Length; i++)
            {
                int room = 0;
                foreach (Lz4FrameBatchItem item in items[i])
                    room = Math.Max(room, item.DestinationOffset + item.DestinationLength);
                frames[i] = new byte[room];
                most = Math.Max(most, items[i].Length);
            }
            var written = new int[most];
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
