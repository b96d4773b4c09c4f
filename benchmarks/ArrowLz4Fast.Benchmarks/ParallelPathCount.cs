using System;
using System.Linq;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--parallel-count</c>: for every producer of <see cref="ParallelCodecBenchmarks"/>, how many of its real buffers
    /// take the parallel path with the default options (MinimumParallelLength and BlockSize 256 KiB) at 2 cores: every Decompress call
    /// of a read of its streams and every TryCompress of the decoded buffers into a destination of their own length (as
    /// ArrowStreamWriter offers), counted by the parallel decoder's and encoder's own counters. Deterministic (no timing):
    /// for a producer with 0 and 0, the parallel setting can only cost the pre-checks on each call.
    /// </summary>
    internal static class ParallelPathCount
    {
        public const string Switch = "--parallel-count";

        public static int Run(string[] args)
        {
            var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            // The column label follows the constant the counts use, so it cannot go stale when the default moves.
            string minimum = $"{Lz4Parallelism.DefaultMinimumLength >> 10} KiB";
            Console.WriteLine($"| producer | Decompress calls | of >= {minimum} | parallel decode | TryCompress calls | of >= {minimum} | parallel encode |");
            Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|");
            foreach (string producer in ParallelInputs.Producers())
            {
                CodecInputs inputs = CodecInputs.Capture(ParallelInputs.Streams(producer));
                long decodeBefore = Lz4ParallelDecoder.ParallelCalls;
                for (int i = 0; i < inputs.Frames.Length; i++)
                    codec.Decompress(inputs.Frames[i], inputs.Destinations[i]);
                long decodes = Lz4ParallelDecoder.ParallelCalls - decodeBefore;

                byte[][] buffers = inputs.Destinations.Where(d => d.Length > 0).ToArray();
                long encodeBefore = Lz4ParallelEncoder.ParallelCalls;
                foreach (byte[] buffer in buffers)
                    codec.TryCompress(buffer, new byte[buffer.Length], out _);
                long encodes = Lz4ParallelEncoder.ParallelCalls - encodeBefore;

                int big = inputs.Lengths.Count(l => l >= Lz4Parallelism.DefaultMinimumLength);
                int bigBuffers = buffers.Count(b => b.Length >= Lz4Parallelism.DefaultMinimumLength);
                Console.WriteLine($"| {producer} | {inputs.Frames.Length} | {big} | {decodes} | {buffers.Length} | {bigBuffers} | {encodes} |");
                if (Array.IndexOf(args, "--time") >= 0)
                    Time(inputs, buffers);
                if (Array.IndexOf(args, "--sizes") >= 0)
                    Console.WriteLine($"//   buffers >= {minimum}: " + string.Join(", ", buffers.Where(b => b.Length >= Lz4Parallelism.DefaultMinimumLength).Select(b => b.Length.ToString(System.Globalization.CultureInfo.InvariantCulture))));
            }
            return 0;
        }

        /// <summary>
        /// <c>--time</c>: the whole read's Decompress calls and the TryCompress calls at 1 and 2 cores, alternating in one
        /// process (40 rounds, minimum and median): an indication of the codec-level ratio that does not depend on one
        /// process's code layout, as separate BenchmarkDotNet processes do.
        /// </summary>
        private static void Time(CodecInputs inputs, byte[][] buffers)
        {
            var one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
            var two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            byte[][] compressed = Array.ConvertAll(buffers, b => new byte[b.Length]);
            var times = new System.Collections.Generic.List<double>[4];
            for (int k = 0; k < times.Length; k++)
                times[k] = new System.Collections.Generic.List<double>();
            for (int round = -3; round < 40; round++)
            {
                for (int k = 0; k < times.Length; k++)
                {
                    Lz4FastCodec codec = k % 2 == 0 ? one : two;
                    long start = System.Diagnostics.Stopwatch.GetTimestamp();
                    if (k < 2)
                    {
                        for (int i = 0; i < inputs.Frames.Length; i++)
                            codec.Decompress(inputs.Frames[i], inputs.Destinations[i]);
                    }
                    else
                    {
                        for (int i = 0; i < buffers.Length; i++)
                            codec.TryCompress(buffers[i], compressed[i], out _);
                    }
                    if (round >= 0)
                        times[k].Add((System.Diagnostics.Stopwatch.GetTimestamp() - start) * 1e6 / System.Diagnostics.Stopwatch.Frequency);
                }
            }
            foreach (var t in times)
                t.Sort();
            double Min(int k) => times[k][0];
            double Median(int k) => times[k][times[k].Count / 2];
            Console.WriteLine($"//   decode 1 core {Min(0):0} us ({Median(0):0}), 2 cores {Min(1):0} ({Median(1):0}): 2/1 = {Min(1) / Min(0):0.000} min, {Median(1) / Median(0):0.000} median"
                + $" | encode 1 core {Min(2):0} us ({Median(2):0}), 2 cores {Min(3):0} ({Median(3):0}): 2/1 = {Min(3) / Min(2):0.000} min, {Median(3) / Median(2):0.000} median");
        }
    }
}
