using System;
using System.Collections.Generic;
using System.Diagnostics;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--parallel-probe</c>: one buffer of the order-lines table's content at several lengths and block sizes,
    /// decoded and encoded at 1 and 2 cores in alternation (so both see the same machine load), reporting the
    /// minimum and the median of each. On a shared machine the minimum shows what a free second core gives and the
    /// median what the load leaves; BenchmarkDotNet's means (ParallelBufferBenchmarks) are the numbers to commit
    /// from a quiet machine.
    /// </summary>
    internal static class ParallelProbe
    {
        public const string Switch = "--parallel-probe";

        public static int Run()
        {
            foreach (int blockSize in new[] { 64 << 10, 1 << 20 })
            foreach (int length in new[] { 256 << 10, 1 << 20, 2 << 20, 8 << 20 })
            {
                var buffer = BlockSizeBenchmarks.TableContent(length);
                var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = blockSize });
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize });
                var frame = new byte[length];
                one.TryCompress(buffer, frame, out int frameLength);
                var output = new byte[length];
                int rounds = Math.Max(20, (int)(400L * 65536 / length));
                var times = new List<double>[4];
                for (int k = 0; k < 4; k++)
                    times[k] = new List<double>();
                for (int round = -5; round < rounds; round++)
                {
                    for (int k = 0; k < 4; k++)
                    {
                        long start = Stopwatch.GetTimestamp();
                        switch (k)
                        {
                            case 0: one.Decompress(frame.AsMemory(0, frameLength), output); break;
                            case 1: two.Decompress(frame.AsMemory(0, frameLength), output); break;
                            case 2: one.TryCompress(buffer, output, out _); break;
                            default: two.TryCompress(buffer, output, out _); break;
                        }
                        if (round >= 0)
                            times[k].Add((Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency);
                    }
                }
                foreach (List<double> t in times)
                    t.Sort();
                double Min(int k) => times[k][0];
                double Median(int k) => times[k][times[k].Count / 2];
                Console.WriteLine(
                    $"block {blockSize >> 10,4} KiB, buffer {length >> 10,5} KiB: decode 1 core {Min(0),8:0} us (median {Median(0),8:0}), 2 cores {Min(1),8:0} us (median {Median(1),8:0}): "
                    + $"{Min(0) / Min(1):0.00}x min, {Median(0) / Median(1):0.00}x median | encode 1 core {Min(2),8:0} us (median {Median(2),8:0}), 2 cores {Min(3),8:0} us (median {Median(3),8:0}): "
                    + $"{Min(2) / Min(3):0.00}x min, {Median(2) / Median(3):0.00}x median");
            }
            CompareVariants();
            return 0;
        }

        /// <summary>
        /// The two internal choices, on content-checksummed frames: content hash pipelined behind the decoding vs after
        /// it, and encode placement in scratch + copy vs worst-case slots + compaction; 2 cores, alternating.
        /// </summary>
        private static void CompareVariants()
        {
            const int Length = 8 << 20;
            var buffer = BlockSizeBenchmarks.TableContent(Length);
            foreach (int blockSize in new[] { 64 << 10, 1 << 20, 4 << 20 })
            {
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize, ContentChecksum = true });
                var frame = new byte[Length];
                two.TryCompress(buffer, frame, out int frameLength);
                var output = new byte[Length];
                var times = new List<double>[4];
                for (int k = 0; k < 4; k++)
                    times[k] = new List<double>();
                for (int round = -5; round < 60; round++)
                {
                    for (int k = 0; k < 4; k++)
                    {
                        Lz4ParallelDecoder.HashAfterDecoding = k == 1;
                        Lz4ParallelEncoder.Placement = k == 3 ? Lz4ParallelEncoder.PlacementMode.Slots : Lz4ParallelEncoder.PlacementMode.Scratch;
                        long start = Stopwatch.GetTimestamp();
                        if (k < 2)
                            two.Decompress(frame.AsMemory(0, frameLength), output);
                        else
                            two.TryCompress(buffer, output, out _);
                        if (round >= 0)
                            times[k].Add((Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency);
                    }
                }
                Lz4ParallelDecoder.HashAfterDecoding = false;
                Lz4ParallelEncoder.Placement = Lz4ParallelEncoder.PlacementMode.Slots;
                foreach (List<double> t in times)
                    t.Sort();
                double Min(int k) => times[k][0];
                double Median(int k) => times[k][times[k].Count / 2];
                Console.WriteLine(
                    $"content-checksummed 8 MiB, block {blockSize >> 10,4} KiB, 2 cores: decode hash behind {Min(0),6:0} us (median {Median(0),6:0}), hash after {Min(1),6:0} us (median {Median(1),6:0}) | "
                    + $"encode scratch + copy {Min(2),6:0} us (median {Median(2),6:0}), slots + compaction {Min(3),6:0} us (median {Median(3),6:0})");
            }
        }
    }
}
