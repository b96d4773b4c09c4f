using System;
using System.Runtime.InteropServices;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// How fast each vCPU runs the block encoder right now: the project's VM has episodes of tens of seconds in which
    /// one of its two vCPUs runs this code up to about 1.8x slower than the other (which one changes), so a 2-core /
    /// 1-core ratio means little without it. The parallel benchmarks print it from their setup and cleanup into
    /// BenchmarkDotNet's log (<c>// vCPU speed: …</c>), for every case's process. Linux only (thread affinity).
    /// </summary>
    internal static unsafe class VcpuSpeed
    {
        private const int BlockLength = 128 << 10;
        private const int Repeats = 15;

        /// <summary>True where a thread can be pinned to one vCPU (Linux, two cores or more).</summary>
        public static bool CanPin => OperatingSystem.IsLinux() && Environment.ProcessorCount >= 2 && Environment.ProcessorCount <= 64;

        /// <summary>Pins the calling thread to vCPU <paramref name="cpu"/>, or to every core when it is negative.</summary>
        public static void Pin(int cpu)
        {
            ulong mask = cpu >= 0 ? 1UL << cpu : Environment.ProcessorCount >= 64 ? ulong.MaxValue : (1UL << Environment.ProcessorCount) - 1;
            // pid 0: the calling thread (Linux affinity is per thread).
            if (sched_setaffinity(0, (IntPtr)sizeof(ulong), ref mask) != 0)
                throw new InvalidOperationException("sched_setaffinity failed: " + Marshal.GetLastPInvokeError());
        }

        /// <summary>
        /// Prints <see cref="Measure"/> into the benchmark process's output as <c>// vCPU speed at {moment}: …</c>, the
        /// line <c>benchmarks/results/vcpu_states.py</c> reads.
        /// </summary>
        public static void Log(string moment) => Console.WriteLine($"// vCPU speed at {moment}: {Measure()}");

        /// <summary>
        /// The median time (µs) of compressing 128 KiB of the order-lines table's content on each vCPU, and the slower
        /// over the faster; the calling thread ends unpinned.
        /// </summary>
        public static string Measure()
        {
            if (!CanPin)
                return "n/a (Linux with 2-64 cores only)";
            double[] medians = Medians();
            double fastest = double.MaxValue, slowest = 0;
            var text = new System.Text.StringBuilder();
            for (int cpu = 0; cpu < medians.Length; cpu++)
            {
                fastest = Math.Min(fastest, medians[cpu]);
                slowest = Math.Max(slowest, medians[cpu]);
                text.Append(System.Globalization.CultureInfo.InvariantCulture, $"vCPU{cpu} {medians[cpu]:0} us, ");
            }
            text.Append(System.Globalization.CultureInfo.InvariantCulture, $"slow/fast {slowest / fastest:0.00} (128 KiB block encode, median of {Repeats})");
            return text.ToString();
        }

        /// <summary>The median time (µs) of compressing 128 KiB on each vCPU (at most 8); the calling thread ends unpinned. Needs <see cref="CanPin"/>.</summary>
        public static double[] Medians()
        {
            byte[] source = BlockSizeBenchmarks.TableContent(BlockLength);
            byte[] target = new byte[BlockLength];
            var medians = new double[Math.Min(Environment.ProcessorCount, 8)];
            var times = new double[Repeats];
            try
            {
                fixed (byte* s = source)
                fixed (byte* t = target)
                {
                    for (int cpu = 0; cpu < medians.Length; cpu++)
                    {
                        Pin(cpu);
                        Lz4BlockEncoder.Encode(s, BlockLength, t, BlockLength - 1, LZ4Level.L00_FAST);
                        for (int i = 0; i < Repeats; i++)
                        {
                            long start = System.Diagnostics.Stopwatch.GetTimestamp();
                            Lz4BlockEncoder.Encode(s, BlockLength, t, BlockLength - 1, LZ4Level.L00_FAST);
                            times[i] = (System.Diagnostics.Stopwatch.GetTimestamp() - start) * 1e6 / System.Diagnostics.Stopwatch.Frequency;
                        }
                        Array.Sort(times);
                        medians[cpu] = times[Repeats / 2];
                    }
                }
            }
            finally
            {
                Pin(-1);
            }
            return medians;
        }

        [DllImport("libc", SetLastError = true)]
        private static extern int sched_setaffinity(int pid, IntPtr cpusetsize, ref ulong mask);
    }
}
