using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--helper-output-probe</c>: two-core <c>TryCompress</c> of one buffer of the order-lines table's content, and
    /// the order-lines write (Arrow's native allocator and the slab allocator), with the helper threads compressing
    /// into their own buffer and copying (the shipped way) against compressing straight into the slots the calling
    /// thread reads, alternating per round in one process; one-core and official times for scale; and two-core decode
    /// into a destination reused from call to call against one the caller zero-filled just before (as Arrow's native
    /// allocator does). Medians.
    /// </summary>
    internal static class HelperOutputProbe
    {
        public const string Switch = "--helper-output-probe";

        public static int Run()
        {
            Console.WriteLine($"// {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, {Environment.ProcessorCount} cores; medians; 'own buffer' is the shipped way; vCPU speed: {VcpuSpeed.Measure()}");
            foreach ((int length, int blockSize) in new[] { (256 << 10, 256 << 10), (1 << 20, 64 << 10), (1 << 20, 256 << 10), (1 << 20, 1 << 20), (8 << 20, 256 << 10), (8 << 20, 1 << 20) })
            {
                var buffer = BlockSizeBenchmarks.TableContent(length);
                var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = blockSize });
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize });
                var output = new byte[length];
                int rounds = Math.Max(20, (int)(300L * (1 << 20) / length));
                var times = new[] { new List<double>(), new List<double>(), new List<double>() };
                for (int round = -3; round < rounds; round++)
                {
                    for (int k = 0; k < 3; k++)
                    {
                        Lz4ParallelEncoder.PrivateHelperOutput = k != 2;
                        for (int call = 0; call < 3; call++)
                        {
                            long start = Stopwatch.GetTimestamp();
                            (k == 0 ? one : two).TryCompress(buffer, output, out _);
                            if (round >= 0)
                                times[k].Add((Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency);
                        }
                    }
                }
                Lz4ParallelEncoder.PrivateHelperOutput = true;
                double Median(int k) { times[k].Sort(); return times[k][times[k].Count / 2]; }
                Console.WriteLine($"TryCompress {length >> 10,5} KiB in {blockSize >> 10,4} KiB blocks, us: 1 core {Median(0),8:0.0} | 2 cores, own buffer {Median(1),8:0.0} ({Median(0) / Median(1):0.00}x) | 2 cores, straight into the slots {Median(2),8:0.0} ({Median(0) / Median(2):0.00}x)");
            }

            // Decode writes straight into the destination on every thread. Arrow's native allocator zero-fills each new
            // buffer on the calling thread just before the codec fills it, so its cache lines start in the caller's
            // core; the same decode into a destination zero-filled (untimed) before every call, against one reused.
            foreach ((int length, int blockSize) in new[] { (1 << 20, 256 << 10), (8 << 20, 1 << 20) })
            {
                var buffer = BlockSizeBenchmarks.TableContent(length);
                var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = blockSize });
                var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = blockSize });
                var frame = new byte[length + 1024];
                one.TryCompress(buffer, frame, out int frameLength);
                var output = new byte[length];
                int rounds = Math.Max(20, (int)(300L * (1 << 20) / length));
                // 0, 1: one core, two cores, reused destination; 2, 3: the same, zero-filled before each call.
                var times = new[] { new List<double>(), new List<double>(), new List<double>(), new List<double>() };
                for (int round = -3; round < rounds; round++)
                {
                    for (int k = 0; k < 4; k++)
                    {
                        for (int call = 0; call < 3; call++)
                        {
                            if (k >= 2)
                                output.AsSpan().Clear();
                            long start = Stopwatch.GetTimestamp();
                            (k % 2 == 0 ? one : two).Decompress(frame.AsMemory(0, frameLength), output);
                            if (round >= 0)
                                times[k].Add((Stopwatch.GetTimestamp() - start) * 1e6 / Stopwatch.Frequency);
                        }
                    }
                }
                double Median(int k) { times[k].Sort(); return times[k][times[k].Count / 2]; }
                Console.WriteLine($"Decode {length >> 10,5} KiB in {blockSize >> 10,4} KiB blocks, us: reused destination 1 core {Median(0),8:0.0}, 2 cores {Median(1),8:0.0} ({Median(0) / Median(1):0.00}x) | zero-filled by the caller first: 1 core {Median(2),8:0.0}, 2 cores {Median(3),8:0.0} ({Median(2) / Median(3):0.00}x)");
            }

            var batches = SyntheticTable.Batches();
            var stream = new MemoryStream(64 << 20);
            ICompressionCodecFactory official = new CompressionCodecFactory();
            ICompressionCodecFactory twoCores = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            foreach (string name in new[] { Allocators.Native, Allocators.Slab })
            {
                var allocator = Allocators.Create(name);
                var times = new[] { new List<double>(), new List<double>(), new List<double>() };
                for (int round = -2; round < 30; round++)
                {
                    for (int k = 0; k < 3; k++)
                    {
                        Lz4ParallelEncoder.PrivateHelperOutput = k != 2;
                        stream.SetLength(0);
                        long start = Stopwatch.GetTimestamp();
                        SyntheticTable.WriteStream(batches, k == 0 ? official : twoCores, stream, allocator: allocator);
                        if (round >= 0)
                            times[k].Add((Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency);
                    }
                }
                Lz4ParallelEncoder.PrivateHelperOutput = true;
                double Median(int k) { times[k].Sort(); return times[k][times[k].Count / 2]; }
                Console.WriteLine($"order-lines write, {name} allocator, ms: official {Median(0):0.0} | 2 cores, own buffer {Median(1):0.0} ({Median(0) / Median(1):0.00}x official) | 2 cores, straight into the slots {Median(2):0.0} ({Median(0) / Median(2):0.00}x)");
            }
            Console.WriteLine($"// vCPU speed at the end: {VcpuSpeed.Measure()}");
            return 0;
        }
    }
}
