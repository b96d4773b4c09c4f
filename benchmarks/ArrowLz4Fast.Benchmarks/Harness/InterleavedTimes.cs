using System;
using System.Diagnostics;
using System.Linq;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// Paths timed one after the other within each benchmark operation, in a rotating order, for ratios that share
    /// each moment: this VM's vCPUs run at unequal speeds in episodes of seconds to tens of seconds, and a case measured
    /// on its own may spend itself whole inside one. Keeps the last operations' ticks (preallocated: timing allocates
    /// nothing); medians are taken over the later half of what it kept, after BenchmarkDotNet's warm-up.
    /// </summary>
    internal sealed class InterleavedTimes
    {
        private readonly long[][] _ticks;
        private long _count;

        /// <param name="paths">The paths timed in each operation.</param>
        /// <param name="kept">How many of the latest operations are kept.</param>
        public InterleavedTimes(int paths, int kept = 1 << 15) =>
            _ticks = Enumerable.Range(0, kept).Select(_ => new long[paths]).ToArray();

        /// <summary>Whether enough operations ran for medians.</summary>
        public bool Enough => _count >= 8;

        /// <summary>How many operations the medians are over.</summary>
        public int Operations => (int)(Math.Min(_count, _ticks.Length) / 2);

        /// <summary>Runs every path once, starting at a turn that rotates from operation to operation; returns the sum of what they return.</summary>
        public long Run(Func<long>[] paths)
        {
            long[] row = _ticks[_count % _ticks.Length];
            int turn = (int)(_count % paths.Length);
            long total = 0;
            for (int i = 0; i < paths.Length; i++)
            {
                int path = (turn + i) % paths.Length;
                long start = Stopwatch.GetTimestamp();
                total += paths[path]();
                row[path] = Stopwatch.GetTimestamp() - start;
            }
            _count++;
            return total;
        }

        /// <summary>The median, over the later half of the kept operations, of <paramref name="of"/> (an operation's ticks per path).</summary>
        public double Median(Func<long[], double> of)
        {
            int kept = (int)Math.Min(_count, _ticks.Length);
            int newest = (int)((_count - 1) % _ticks.Length);
            double[] values = Enumerable.Range(0, kept / 2).Select(k => of(_ticks[((newest - k) % _ticks.Length + _ticks.Length) % _ticks.Length])).OrderBy(v => v).ToArray();
            return values.Length % 2 == 1 ? values[values.Length / 2] : (values[(values.Length / 2) - 1] + values[values.Length / 2]) / 2;
        }

        /// <summary>The median time of path <paramref name="path"/>, in microseconds.</summary>
        public double MedianMicroseconds(int path) => Median(t => t[path] * 1e6 / Stopwatch.Frequency);

        /// <summary>The median time of path <paramref name="path"/>, in milliseconds.</summary>
        public double MedianMilliseconds(int path) => MedianMicroseconds(path) / 1000;

        /// <summary>The median, per operation, of path <paramref name="numerator"/>'s time over path <paramref name="denominator"/>'s.</summary>
        public double MedianRatio(int numerator, int denominator) => Median(t => (double)t[numerator] / t[denominator]);
    }
}
