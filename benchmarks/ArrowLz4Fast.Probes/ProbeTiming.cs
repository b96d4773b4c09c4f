using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>What the in-process probes share: interleaved rounds with medians, a timed loop, and IPC stream reads.</summary>
    internal static class ProbeTiming
    {
        /// <summary>Runs every case once per round, in order, and returns each case's median in milliseconds (10 warm-up rounds dropped).</summary>
        public static double[] InterleavedMedians(IReadOnlyList<Func<long>> cases, int rounds)
        {
            var times = cases.Select(_ => new List<double>()).ToArray();
            for (int round = 0; round < rounds + 10; round++)
            {
                for (int i = 0; i < cases.Count; i++)
                {
                    long start = Stopwatch.GetTimestamp();
                    cases[i]();
                    if (round >= 10)
                        times[i].Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
                }
            }
            return times.Select(t => t.OrderBy(v => v).ElementAt(t.Count / 2)).ToArray();
        }

        /// <summary>Runs one case for 12 s, for a sampling profiler; returns the mean time per run in milliseconds.</summary>
        public static (int Runs, double Milliseconds) Loop(Func<long> run)
        {
            var clock = Stopwatch.StartNew();
            int runs = 0;
            while (clock.Elapsed.TotalSeconds < 12)
            {
                run();
                runs++;
            }
            return (runs, clock.Elapsed.TotalMilliseconds / runs);
        }

        /// <summary>One of IpcParallelReadBenchmarks' streams: the numeric ones from ../shared, the others from the producers' corpus.</summary>
        public static byte[] LoadIpcStream(string stream) =>
            stream.EndsWith("/numeric", StringComparison.Ordinal)
                ? File.ReadAllBytes(Path.Combine(RepositoryPaths.SharedCorpus, "ipc", stream + ".arrows"))
                : ProducerStreams.LoadStream(stream);

        /// <summary>Reads every batch with SlabMemoryAllocator.Shared; <paramref name="consume"/> sums each batch's buffers before it is disposed.</summary>
        public static long ReadAll(Stream input, ICompressionCodecFactory? factory, Func<RecordBatch, long>? consume = null)
        {
            long rows = 0;
            using var reader = new ArrowStreamReader(input, SlabMemoryAllocator.Shared, factory!, leaveOpen: false);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                if (consume is not null)
                    rows += consume(batch) & 1;
                batch.Dispose();
            }
            return rows;
        }
    }
}
