using System;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--window-reuse-probe</c>: what a second thread pays to decode into memory the first thread has just read.
    /// Lz4FrameStream's read-ahead has a helper decode a block into a window that the caller copies out afterwards,
    /// and the next batch decodes into the same window again. Each round times one pair of 4 MiB block decodes: the
    /// caller into its own buffer, a helper thread into a window, after the caller has read that window (copied it
    /// out) with 0 to 4 other 4 MiB windows read after it, or not read it at all. The sequential pair is beside it.
    /// Several processes matter: on the project's VM the penalty comes and goes from one process to the next.
    /// </summary>
    internal static class WindowReuseProbe
    {
        public const string Switch = "--window-reuse-probe";

        private const int BlockSize = 4 << 20;

        public static int Run(string[] args)
        {
            int rounds = args.SkipWhile(a => a != Switch).Skip(1).Select(a => int.TryParse(a, out int n) ? n : 0).FirstOrDefault();
            rounds = rounds > 0 ? rounds : 40;
            byte[] content = BlockSizeBenchmarks.TableContent(BlockSize);
            byte[] block = new byte[LZ4Codec.MaximumOutputSize(BlockSize)];
            block = block.AsSpan(0, LZ4Codec.Encode(content, block, LZ4Level.L00_FAST)).ToArray();
            byte[] mine = new byte[BlockSize];
            byte[] sink = new byte[BlockSize];
            byte[][] windows = Enumerable.Range(0, 6).Select(_ => new byte[BlockSize]).ToArray();

            byte[]? helperTarget = null;
            int helperDone = 0;
            bool stop = false;
            var helper = new Thread(() =>
            {
                while (!Volatile.Read(ref stop))
                {
                    byte[]? target = Volatile.Read(ref helperTarget);
                    if (target == null)
                    {
                        Thread.SpinWait(20);
                        continue;
                    }
                    LZ4Codec.Decode(block, target);
                    Volatile.Write(ref helperTarget, null);
                    Volatile.Write(ref helperDone, 1);
                }
            }) { IsBackground = true, Name = "probe helper" };
            helper.Start();

            double Pair(byte[] window)
            {
                long start = Stopwatch.GetTimestamp();
                Volatile.Write(ref helperDone, 0);
                Volatile.Write(ref helperTarget, window);
                LZ4Codec.Decode(block, mine);
                while (Volatile.Read(ref helperDone) == 0)
                    Thread.SpinWait(20);
                return (Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency;
            }

            double Sequential()
            {
                long start = Stopwatch.GetTimestamp();
                LZ4Codec.Decode(block, mine);
                LZ4Codec.Decode(block, windows[0]);
                return (Stopwatch.GetTimestamp() - start) * 1e3 / Stopwatch.Frequency;
            }

            // -1: the caller never read the helper's window (the helper wrote it last); k >= 0: the caller read it, then k other windows.
            int[] readsAfter = { -1, 0, 1, 2, 4 };
            var pairs = readsAfter.Select(_ => new double[rounds]).ToArray();
            var sequential = new double[rounds];
            for (int round = 0; round < rounds; round++)
            {
                sequential[round] = Sequential();
                for (int v = 0; v < readsAfter.Length; v++)
                {
                    byte[] window = windows[1];
                    if (readsAfter[v] >= 0)
                    {
                        window.AsSpan().CopyTo(sink);
                        for (int k = 0; k < readsAfter[v]; k++)
                            windows[2 + k].AsSpan().CopyTo(sink);
                    }
                    pairs[v][round] = Pair(window);
                }
            }
            Volatile.Write(ref stop, true);
            helper.Join();

            double seq = Median(sequential);
            Console.WriteLine($"4 MiB block decode pairs, {rounds} rounds, medians: sequential pair {seq:0.00} ms");
            for (int v = 0; v < readsAfter.Length; v++)
            {
                string what = readsAfter[v] < 0 ? "helper's window not read by the caller" : $"caller read the window, then {readsAfter[v]} other 4 MiB window(s)";
                double median = Median(pairs[v]);
                Console.WriteLine($"  two threads, {what,-58}: {median,6:0.00} ms, {seq / median:0.00}x the sequential pair");
            }
            return 0;
        }

        private static double Median(double[] values)
        {
            double[] sorted = values.Skip(values.Length / 8).OrderBy(x => x).ToArray();
            return sorted[sorted.Length / 2];
        }
    }
}
