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
    /// <c>--core-speed-probe</c> (Linux): the parallel speed-up measured against each core separately. The project's
    /// VM has two vCPUs whose speed differs by up to 1.8x in episodes of tens of seconds, and which one is slow
    /// changes (its physical core's other hyperthread presumably busy with another tenant: a latency-bound multiply
    /// chain runs at the same speed on both, hashing into a table and streaming do not). A single-core benchmark then
    /// measures whichever vCPU its thread ran on, and two cores can at best run 1 + slow/fast times the fast one.
    /// So every round here runs a burst of single-core calls with the calling thread pinned to vCPU 0, the same on
    /// vCPU 1, then a burst of two-core calls unpinned, all within a few milliseconds, and reports per round the
    /// two-core speed-up over the mean single core, over the faster one, and the efficiency: the ideal two-core time
    /// (both cores busy to the end, 1 / (1/t0 + 1/t1)) over the measured one. With two equal cores an efficiency
    /// of 0.85 is a 1.7x speed-up. Rounds whose two cores differ by less than 10 % are also reported apart
    /// ("equal rounds"): the speed-up a two-core machine with equal cores would show. The order-lines write is measured
    /// the same way against the official codec (pinned to each vCPU in turn), with Arrow's native allocator and with
    /// the slab allocator. <c>--rounds N</c> sets the buffer rounds, <c>--writes N</c> the write rounds (0: none).
    /// </summary>
    internal static class CoreSpeedProbe
    {
        public const string Switch = "--core-speed-probe";

        private const int Burst = 3;

        public static int Run(string[] args)
        {
            if (!VcpuSpeed.CanPin)
            {
                Console.WriteLine("// the core-speed probe pins threads with sched_setaffinity: Linux with two or more cores only");
                return 1;
            }
            int roundsOption = ProbeOptions.Option(args, "--rounds", 0);
            int writes = ProbeOptions.Option(args, "--writes", 40);
            Console.WriteLine($"// {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, {Environment.ProcessorCount} cores; per round: {Burst} calls pinned to vCPU 0, {Burst} pinned to vCPU 1, {Burst} at 2 cores unpinned (medians of each burst)");
            foreach ((int blockSize, int length) in new[] { (64 << 10, 1 << 20), (256 << 10, 1 << 20), (1 << 20, 1 << 20), (64 << 10, 8 << 20), (1 << 20, 8 << 20) })
            {
                var buffer = BlockSizeBenchmarks.TableContent(length);
                var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = blockSize });
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize });
                var frame = new byte[length + 1024];
                if (!one.TryCompress(buffer, frame, out int frameLength))
                    throw new InvalidOperationException("the buffer does not compress");
                var output = new byte[length + 1024];
                int rounds = roundsOption > 0 ? roundsOption : Math.Max(30, (int)(200L * (1 << 20) / length));
                var decode = new Rounds();
                var encode = new Rounds();
                var burst = new double[Burst];
                for (int round = -3; round < rounds; round++)
                {
                    for (int operation = 0; operation < 2; operation++)
                    {
                        var times = new double[3];
                        for (int variant = 0; variant < 3; variant++)
                        {
                            Pin(variant);
                            for (int call = 0; call < Burst; call++)
                            {
                                long start = Stopwatch.GetTimestamp();
                                if (operation == 0)
                                    (variant < 2 ? one : two).Decompress(frame.AsMemory(0, frameLength), output.AsMemory(0, length));
                                else
                                    (variant < 2 ? one : two).TryCompress(buffer, output, out _);
                                burst[call] = (Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency;
                            }
                            Array.Sort(burst);
                            times[variant] = burst[Burst / 2];
                        }
                        if (round >= 0)
                            (operation == 0 ? decode : encode).Add(times[0], times[1], times[2]);
                    }
                }
                Pin(2);
                Console.WriteLine($"block {blockSize >> 10,4} KiB, buffer {length >> 10,5} KiB, {rounds} rounds:");
                Console.WriteLine($"  decode {decode}");
                Console.WriteLine($"  encode {encode}");
            }
            if (writes > 0)
                Writer(writes);
            return 0;
        }

        /// <summary>Per round: the order-lines write with the official codec on vCPU 0, on vCPU 1, then with ArrowLz4Fast at 2 cores.</summary>
        private static void Writer(int rounds)
        {
            var batches = SyntheticTable.Batches();
            var output = new MemoryStream(64 << 20);
            ICompressionCodecFactory official = new CompressionCodecFactory();
            ICompressionCodecFactory two = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            foreach (string name in new[] { Allocators.Native, Allocators.Slab })
            {
                var allocator = Allocators.Create(name);
                var summary = new Rounds("ms", sameCode: false);
                var times = new double[3];
                for (int round = -2; round < rounds; round++)
                {
                    for (int variant = 0; variant < 3; variant++)
                    {
                        Pin(variant);
                        output.SetLength(0);
                        long start = Stopwatch.GetTimestamp();
                        SyntheticTable.WriteStream(batches, variant < 2 ? official : two, output, allocator: allocator);
                        times[variant] = (Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency;
                    }
                    if (round >= 0)
                        summary.Add(times[0], times[1], times[2]);
                }
                Pin(2);
                Console.WriteLine($"order-lines write, {name} allocator, official on one vCPU against ArrowLz4Fast on 2 cores, {rounds} rounds (ms):");
                Console.WriteLine($"  write  {summary}");
            }
        }

        /// <summary>Variant 0: the calling thread on vCPU 0 only; 1: on vCPU 1 only; 2: on every core (unpinned).</summary>
        private static void Pin(int variant) => VcpuSpeed.Pin(variant < 2 ? variant : -1);

        /// <summary>Per-round single-core times on each vCPU and the two-core time, summarised over the rounds.</summary>
        private sealed class Rounds
        {
            private readonly string _unit;
            private readonly List<double> _core0 = new();
            private readonly List<double> _core1 = new();
            private readonly List<double> _two = new();
            private readonly List<double> _overMean = new();
            private readonly List<double> _overFaster = new();
            private readonly List<double> _efficiency = new();
            private readonly List<double> _equalOverMean = new();
            private readonly List<double> _asymmetry = new();

            private readonly bool _sameCode;

            /// <param name="unit">The unit of the times.</param>
            /// <param name="sameCode">The single-core and two-core times are of the same code (else the efficiency means nothing).</param>
            public Rounds(string unit = "us", bool sameCode = true)
            {
                _unit = unit;
                _sameCode = sameCode;
            }

            public void Add(double core0, double core1, double two)
            {
                _core0.Add(core0);
                _core1.Add(core1);
                _two.Add(two);
                _overMean.Add((core0 + core1) / 2 / two);
                _overFaster.Add(Math.Min(core0, core1) / two);
                _efficiency.Add(1 / (1 / core0 + 1 / core1) / two);
                double asymmetry = Math.Max(core0, core1) / Math.Min(core0, core1);
                _asymmetry.Add(asymmetry);
                if (asymmetry < 1.10)
                    _equalOverMean.Add((core0 + core1) / 2 / two);
            }

            private static double Median(List<double> values)
            {
                if (values.Count == 0)
                    return double.NaN;
                var sorted = new List<double>(values);
                sorted.Sort();
                return sorted[sorted.Count / 2];
            }

            private static string Quartiles(List<double> values)
            {
                if (values.Count == 0)
                    return "-";
                var sorted = new List<double>(values);
                sorted.Sort();
                return $"{sorted[sorted.Count / 4]:0.00}/{sorted[sorted.Count / 2]:0.00}/{sorted[sorted.Count * 3 / 4]:0.00}";
            }

            public override string ToString() =>
                $"{_unit} median: vCPU0 {Median(_core0),7:0.0}, vCPU1 {Median(_core1),7:0.0}, 2 cores {Median(_two),7:0.0} | slow/fast per round (q1/median/q3) {Quartiles(_asymmetry)} | "
                + $"2 cores over: mean core {Quartiles(_overMean)}, faster core {Quartiles(_overFaster)}" + (_sameCode ? $"; efficiency {Quartiles(_efficiency)}" : "") + " | "
                + $"equal rounds ({_equalOverMean.Count}): over mean core {Quartiles(_equalOverMean)}";
        }
    }
}
