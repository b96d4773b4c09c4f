using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--scheduling-probe</c>: the parallel targets of issue 12 (decode and TryCompress of one buffer of the order-lines
    /// table's content at 2 cores against 1; writing the order-lines table at 2 cores against the official codec),
    /// with the two ways of starting helpers alternating in one process: thread-pool work items per call ("pool", the
    /// earlier scheduling) and the long-lived spinning helpers ("helpers"). Every variant runs a burst of consecutive
    /// calls per round (as a benchmark loop or a reader working through buffers does) and every call is timed; the
    /// rounds alternate, so all variants see the same machine load. Minimum and median are reported; on a shared
    /// machine they are indications only. <c>--spin N</c> sets the helpers' spin (µs), <c>--rounds N</c> the rounds.
    /// </summary>
    internal static class SchedulingProbe
    {
        public const string Switch = "--scheduling-probe";

        public static int Run(string[] args)
        {
            int spin = ProbeOptions.Option(args, "--spin", Lz4ParallelHelpers.SpinMicroseconds);
            int roundsOption = ProbeOptions.Option(args, "--rounds", 0);
            bool writerOnly = Array.IndexOf(args, "--writer") >= 0;
            bool buffersOnly = Array.IndexOf(args, "--buffers") >= 0;
            Lz4ParallelHelpers.SpinMicroseconds = spin;
            s_callerSpin = ProbeOptions.Option(args, "--caller-spin", Lz4ParallelJob.CallerSpinMicroseconds);
            Console.WriteLine($"// 'pool': thread-pool items, caller parks at once (the earlier scheduling); 'helpers': helpers spin {spin} us, caller spins {s_callerSpin} us; {Environment.ProcessorCount} cores");
            if (Array.IndexOf(args, "--load") >= 0)
            {
                Load(roundsOption > 0 ? roundsOption : 10, ProbeOptions.Option(args, "--callers", 2));
                Mode(true);
                return 0;
            }
            if (!writerOnly)
                Buffers(roundsOption);
            if (!buffersOnly)
                Writer(roundsOption > 0 ? roundsOption : 15);
            Mode(true);
            return 0;
        }

        private static int s_callerSpin;

        /// <summary>The new scheduling (helpers, caller spins before parking) or the earlier one (pool items, caller parks at once).</summary>
        private static void Mode(bool helpers)
        {
            Lz4ParallelHelpers.Enabled = helpers;
            Lz4ParallelJob.CallerSpinMicroseconds = helpers ? s_callerSpin : 0;
        }

        private static void Buffers(int roundsOption)
        {
            foreach ((int blockSize, int length) in new[] { (256 << 10, 256 << 10), (1 << 20, 1 << 20), (256 << 10, 1 << 20), (64 << 10, 1 << 20), (64 << 10, 8 << 20), (1 << 20, 2 << 20), (1 << 20, 8 << 20) })
            {
                var buffer = BlockSizeBenchmarks.TableContent(length);
                var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = blockSize });
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize });
                var frame = new byte[length];
                one.TryCompress(buffer, frame, out int frameLength);
                var output = new byte[length];
                int rounds = roundsOption > 0 ? roundsOption : Math.Max(15, (int)(100L * (1 << 20) / length));
                const int Burst = 3;
                // 0-2: decode 1 core, 2 cores pool, 2 cores helpers; 3-5: encode, the same.
                var delays = new List<double>[6];
                for (int k = 0; k < delays.Length; k++)
                    delays[k] = new List<double>();
                var times = new List<double>[6];
                for (int k = 0; k < times.Length; k++)
                    times[k] = new List<double>();
                for (int round = -3; round < rounds; round++)
                {
                    for (int k = 0; k < times.Length; k++)
                    {
                        Mode(k % 3 == 2);
                        Lz4ParallelJob.MeasureHelperStart = k % 3 != 0;
                        lock (Lz4ParallelJob.HelperStartTicks)
                            Lz4ParallelJob.HelperStartTicks.Clear();
                        for (int call = 0; call < Burst; call++)
                        {
                            long start = Stopwatch.GetTimestamp();
                            switch (k)
                            {
                                case 0: one.Decompress(frame.AsMemory(0, frameLength), output); break;
                                case 1:
                                case 2: two.Decompress(frame.AsMemory(0, frameLength), output); break;
                                case 3: one.TryCompress(buffer, output, out _); break;
                                default: two.TryCompress(buffer, output, out _); break;
                            }
                            if (round >= 0)
                                times[k].Add((Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency);
                        }
                        Lz4ParallelJob.MeasureHelperStart = false;
                        if (round >= 0)
                        {
                            lock (Lz4ParallelJob.HelperStartTicks)
                            {
                                foreach (long ticks in Lz4ParallelJob.HelperStartTicks)
                                    delays[k].Add(ticks * 1e6 / Stopwatch.Frequency);
                            }
                        }
                    }
                }
                Mode(true);
                foreach (List<double> t in times)
                    t.Sort();
                foreach (List<double> t in delays)
                    t.Sort();
                string Delay(int k) => delays[k].Count == 0 ? "-" : $"{delays[k][delays[k].Count / 10]:0}/{delays[k][delays[k].Count / 2]:0}/{delays[k][delays[k].Count * 9 / 10]:0}";
                double Min(int k) => times[k][0];
                double Median(int k) => times[k][times[k].Count / 2];
                string Row(int b) =>
                    $"1 core {Min(b),6:0} ({Median(b),6:0}) | pool {Min(b + 1),6:0} ({Median(b + 1),6:0}) {Min(b) / Min(b + 1):0.00}x ({Median(b) / Median(b + 1):0.00}x) | "
                    + $"helpers {Min(b + 2),6:0} ({Median(b + 2),6:0}) {Min(b) / Min(b + 2):0.00}x ({Median(b) / Median(b + 2):0.00}x)";
                Console.WriteLine($"block {blockSize >> 10,4} KiB, buffer {length >> 10,5} KiB, us min (median), {rounds * Burst} calls each:");
                Console.WriteLine($"  decode {Row(0)}");
                Console.WriteLine($"  encode {Row(3)}");
                Console.WriteLine($"  helper start after publish, us p10/p50/p90: decode pool {Delay(1)}, helpers {Delay(2)}; encode pool {Delay(4)}, helpers {Delay(5)}");
            }
        }

        /// <summary>
        /// <c>--load</c>: <c>--callers</c> threads (default 2, every core of the project's VM) each decoding and encoding an
        /// 8 MiB buffer in 1 MiB blocks back to back for a fixed number of calls, with the sequential codec, the parallel
        /// codec with pool items and with helpers, alternating; wall time per round. With every core busy with callers,
        /// the parallel codec must not be more than a few percent slower than the sequential one.
        /// </summary>
        private static void Load(int rounds, int callers)
        {
            const int Length = 8 << 20;
            var buffer = BlockSizeBenchmarks.TableContent(Length);
            var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
            var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            var frame = new byte[Length];
            one.TryCompress(buffer, frame, out int frameLength);
            var times = new List<double>[3];
            for (int k = 0; k < times.Length; k++)
                times[k] = new List<double>();
            for (int round = -1; round < rounds; round++)
            {
                for (int k = 0; k < times.Length; k++)
                {
                    Mode(k == 2);
                    Lz4FastCodec codec = k == 0 ? one : two;
                    long start = Stopwatch.GetTimestamp();
                    System.Threading.Tasks.Parallel.For(0, callers, new System.Threading.Tasks.ParallelOptions { MaxDegreeOfParallelism = callers }, _ =>
                    {
                        var output = new byte[Length];
                        for (int call = 0; call < 6; call++)
                        {
                            codec.Decompress(frame.AsMemory(0, frameLength), output);
                            codec.TryCompress(buffer, output, out _);
                        }
                    });
                    if (round >= 0)
                        times[k].Add((Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency);
                }
            }
            Mode(true);
            foreach (List<double> t in times)
                t.Sort();
            double Min(int k) => times[k][0];
            double Median(int k) => times[k][times[k].Count / 2];
            Console.WriteLine($"{callers} concurrent callers, 6 x (decode + encode) 8 MiB in 1 MiB blocks each, ms min (median), {rounds} rounds: sequential {Min(0):0.0} ({Median(0):0.0}) "
                + $"| parallel pool {Min(1):0.0} ({Median(1):0.0}) {Min(1) / Min(0):0.000}x ({Median(1) / Median(0):0.000}x) time "
                + $"| parallel helpers {Min(2):0.0} ({Median(2):0.0}) {Min(2) / Min(0):0.000}x ({Median(2) / Median(0):0.000}x) time");
        }

        private static void Writer(int rounds)
        {
            var batches = SyntheticTable.Batches();
            var output = new MemoryStream(64 << 20);
            MemoryAllocator allocator = Allocators.Create(Allocators.Slab);
            ICompressionCodecFactory official = new CompressionCodecFactory();
            ICompressionCodecFactory one = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
            ICompressionCodecFactory two = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            // 0: official, 1: 1 core, 2: 2 cores pool, 3: 2 cores helpers.
            var times = new List<double>[4];
            for (int k = 0; k < times.Length; k++)
                times[k] = new List<double>();
            for (int round = -2; round < rounds; round++)
            {
                for (int k = 0; k < times.Length; k++)
                {
                    Mode(k == 3);
                    ICompressionCodecFactory factory = k == 0 ? official : k == 1 ? one : two;
                    output.SetLength(0);
                    long start = Stopwatch.GetTimestamp();
                    SyntheticTable.WriteStream(batches, factory, output, allocator: allocator);
                    if (round >= 0)
                        times[k].Add((Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency);
                }
            }
            Mode(true);
            foreach (List<double> t in times)
                t.Sort();
            double Min(int k) => times[k][0];
            double Median(int k) => times[k][times[k].Count / 2];
            Console.WriteLine($"order-lines write, slab allocator, ms min (median), {rounds} writes each: official {Min(0):0.0} ({Median(0):0.0}) | 1 core {Min(1):0.0} ({Median(1):0.0}) "
                + $"| 2 cores pool {Min(2):0.0} ({Median(2):0.0}) {Min(0) / Min(2):0.00}x ({Median(0) / Median(2):0.00}x) official "
                + $"| 2 cores helpers {Min(3):0.0} ({Median(3):0.0}) {Min(0) / Min(3):0.00}x ({Median(0) / Median(3):0.00}x) official");
        }
    }
}
