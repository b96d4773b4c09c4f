using System;
using System.Diagnostics;
using System.Threading;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--spin-probe</c>: does a second thread slow the one working? One thread compresses 1 MiB with K4os twenty
    /// times while another sleeps, spins (PAUSE, as the parallel helpers do while they wait for the next call), spins
    /// with yields, only yields, or compresses too. If the two vCPUs were hyperthreads of one host core, or the
    /// hypervisor penalized spinning, the worker's time would rise with the other thread's activity.
    /// </summary>
    internal static class SpinProbe
    {
        public const string Switch = "--spin-probe";

        public static int Run()
        {
            byte[] src = BlockSizeBenchmarks.TableContent(1 << 20);
            byte[] dst = new byte[LZ4Codec.MaximumOutputSize(src.Length)];
            double Work()
            {
                long t = Stopwatch.GetTimestamp();
                for (int i = 0; i < 20; i++) LZ4Codec.Encode(src, dst, LZ4Level.L00_FAST);
                return (Stopwatch.GetTimestamp() - t) * 1e3 / Stopwatch.Frequency;
            }
            for (int round = 0; round < 3; round++)
            foreach (string mode in new[] { "idle", "spin-pause", "spin-pause-yield", "yield-only", "compute" })
            {
                int stop = 0;
                var other = new Thread(() =>
                {
                    byte[] d2 = new byte[dst.Length];
                    int i = 0;
                    while (Volatile.Read(ref stop) == 0)
                    {
                        switch (mode)
                        {
                            case "idle": Thread.Sleep(1); break;
                            case "spin-pause": Thread.SpinWait(20); break;
                            case "spin-pause-yield": if ((++i & 7) == 0) Thread.Yield(); else Thread.SpinWait(20); break;
                            case "yield-only": Thread.Yield(); break;
                            default: LZ4Codec.Encode(src, d2, LZ4Level.L00_FAST); break;
                        }
                    }
                });
                other.Start();
                Thread.Sleep(20);
                var times = new double[9];
                for (int k = 0; k < times.Length; k++) times[k] = Work();
                Volatile.Write(ref stop, 1);
                other.Join();
                Array.Sort(times);
                Console.WriteLine($"{mode,-18} encode 20 x 1 MiB: median {times[4],7:0.00} ms, min {times[0],7:0.00} ms");
            }
            return 0;
        }
    }
}
