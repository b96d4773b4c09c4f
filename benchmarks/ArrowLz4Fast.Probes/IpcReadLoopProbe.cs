using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--ipc-read-loop STREAM [wrap2|wrap1|codec2]</c>: whole reads of one of IpcParallelReadBenchmarks' streams (for
    /// example <c>dotnet/orders</c>) through IpcDecompressingStream at 2 or 1 cores, or through the codec at 2, over
    /// and over for 12 s, for a sampling profiler (docs/probes.md has the perf command).
    /// </summary>
    internal static class IpcReadLoopProbe
    {
        public const string Switch = "--ipc-read-loop";

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            string stream = rest.Length > 0 ? rest[0] : "dotnet/orders";
            string mode = rest.Length > 1 ? rest[1] : "wrap2";
            byte[] bytes = ProbeTiming.LoadIpcStream(stream);
            Func<long> read = mode switch
            {
                "wrap1" => () => Read(new IpcDecompressingStream(new MemoryStream(bytes, false), new Lz4FastOptions { MaxDegreeOfParallelism = 1 }), null),
                "codec2" => () => Read(new MemoryStream(bytes, false), new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 })),
                _ => () => Read(new IpcDecompressingStream(new MemoryStream(bytes, false), new Lz4FastOptions { MaxDegreeOfParallelism = 2 }), null),
            };
            (int runs, double each) = ProbeTiming.Loop(read);
            Console.WriteLine($"{stream} {mode}: {runs} reads, {each:F3} ms each");
            return 0;
        }

        private static long Read(Stream input, ICompressionCodecFactory? factory) => ProbeTiming.ReadAll(input, factory);
    }
}
