using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--ipc-consume-probe STREAM [rounds]</c>: IpcParallelReadBenchmarks reads its batches and disposes them unread.
    /// An application reads them first, on the calling thread, and the allocator then hands that memory to the next
    /// body, which helper threads write: on the project's VM a core writing memory another core has just read waits for
    /// it (docs/probes.md, --window-reuse-probe). This probe reads one stream with the codec at 2 cores and the wrapper
    /// at 1 and 2, each with the batches disposed unread and with every buffer summed first, interleaved (medians).
    /// </summary>
    internal static class IpcConsumeProbe
    {
        public const string Switch = "--ipc-consume-probe";

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            string stream = rest.Length > 0 ? rest[0] : "java/numeric";
            int rounds = rest.Length > 1 && int.TryParse(rest[1], out int r) && r > 0 ? r : 30;
            byte[] bytes = ProbeTiming.LoadIpcStream(stream);

            var cases = new List<(string Name, Func<long> Run)>();
            foreach (bool consume in new[] { false, true })
            {
                string suffix = consume ? ", read" : ", unread";
                cases.Add(("codec 2 cores" + suffix, () => Read(new MemoryStream(bytes, false), new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 }), consume)));
                cases.Add(("wrapper 1 core" + suffix, () => Read(new IpcDecompressingStream(new MemoryStream(bytes, false), new Lz4FastOptions { MaxDegreeOfParallelism = 1 }), null, consume)));
                cases.Add(("wrapper 2 cores" + suffix, () => Read(new IpcDecompressingStream(new MemoryStream(bytes, false), new Lz4FastOptions { MaxDegreeOfParallelism = 2 }), null, consume)));
            }
            double[] medians = ProbeTiming.InterleavedMedians(cases.Select(c => c.Run).ToList(), rounds);
            for (int i = 0; i < cases.Count; i++)
                Console.WriteLine($"{stream} {cases[i].Name,-24} {medians[i],8:F3} ms   codec 2 cores / this {medians[i / 3 * 3] / medians[i]:F2}");
            return 0;
        }

        private static long Read(Stream input, ICompressionCodecFactory? factory, bool consume) =>
            ProbeTiming.ReadAll(input, factory, consume ? Sum : null);

        // Reads every byte of every buffer of the batch's top-level arrays, eight at a time.
        private static long Sum(RecordBatch batch)
        {
            long sum = 0;
            foreach (IArrowArray array in batch.Arrays)
            {
                foreach (ArrowBuffer buffer in array.Data.Buffers)
                {
                    foreach (long value in MemoryMarshal.Cast<byte, long>(buffer.Span))
                        sum += value;
                }
            }
            return sum;
        }
    }
}
