using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4.Streams;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--stream-span-probe [rounds]</c>: Lz4FrameStream against Lz4FrameDecoder.Decode on FrameStreamBenchmarks'
    /// B7I and B4D frames, with reads of a block (4 MiB) and of 80 KiB, interleaved round by round in one process
    /// (medians). <c>--stream-span-probe loop "B4D 4M"</c> runs one case for 12 s instead, for a sampling profiler
    /// (docs/probes.md has the perf command).
    /// </summary>
    internal static class StreamSpanProbe
    {
        public const string Switch = "--stream-span-probe";

        public static int Run(string[] args)
        {
            string[] rest = args.SkipWhile(a => a != Switch).Skip(1).ToArray();
            byte[] ipc = FrameStreamBenchmarks.UncompressedIpc();
            var frames = new Dictionary<string, byte[]>
            {
                ["B7I"] = FrameStreamBenchmarks.Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 4 << 20)),
                ["B4D"] = LZ4Frame.Encode(ipc.AsSpan(), new ArrayBufferWriter<byte>(), new LZ4EncoderSettings { ChainBlocks = true, BlockSize = 64 * 1024 }).WrittenSpan.ToArray(),
            };
            byte[] destination = new byte[ipc.Length + (4 << 20)];
            byte[] readBuffer = new byte[4 << 20];

            long Drain(byte[] frame, int readSize)
            {
                long total = 0;
                using var stream = new Lz4FrameStream(new MemoryStream(frame, false), CompressionMode.Decompress);
                int n;
                while ((n = stream.Read(readBuffer, 0, readSize)) > 0)
                    total += n;
                return total;
            }

            var cases = new List<(string Name, Func<long> Run)>();
            foreach ((string name, byte[] frame) in frames)
            {
                cases.Add(($"{name} span", () =>
                {
                    Lz4FrameDecoder.Decode(frame, destination, out _, out int written);
                    return written;
                }));
                cases.Add(($"{name} 4M", () => Drain(frame, 4 << 20)));
                cases.Add(($"{name} 80K", () => Drain(frame, 80 * 1024)));
            }
            foreach ((string name, Func<long> run) in cases)
            {
                if (run() != ipc.Length)
                    throw new InvalidOperationException($"{name} decoded the wrong length");
            }
            Console.WriteLine($"{ipc.Length:N0} bytes decoded; B7I {frames["B7I"].Length:N0} and B4D {frames["B4D"].Length:N0} compressed");

            if (rest.Length >= 2 && rest[0] == "loop")
            {
                (string name, Func<long> run) = cases.First(c => c.Name == rest[1]);
                (int runs, double each) = ProbeTiming.Loop(run);
                Console.WriteLine($"{name}: {runs} iterations, {each:F2} ms each");
                return 0;
            }

            int rounds = rest.Length > 0 && int.TryParse(rest[0], out int r) && r > 0 ? r : 40;
            double[] medians = ProbeTiming.InterleavedMedians(cases.Select(c => c.Run).ToList(), rounds);
            for (int i = 0; i < cases.Count; i++)
                Console.WriteLine($"{cases[i].Name,-9} {medians[i],7:F2} ms   / span {medians[i] / medians[i / 3 * 3]:F3}");
            return 0;
        }
    }
}
