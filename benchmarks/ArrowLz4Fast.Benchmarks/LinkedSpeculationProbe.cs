using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--linked-probe [producer]</c>: the exploration of speculative parallel decode of linked frames (issue 12).
    /// A linked block that decodes alone (no prefix) without error cannot have referenced the previous block, since
    /// the safe decoder rejects offsets before its start, so such blocks could be decoded in parallel and the others
    /// repaired in order. This measures, on a producer's real frames (default pyarrow-numeric): how many blocks decode
    /// alone (and that they decode to exactly the sequential bytes), the time of a sequential decode, of a standalone
    /// attempt of every block, and of decoding only the blocks that need their prefix; and the best 2-core time any
    /// speculative schedule could reach: max((attempts + repairs) / 2, repairs), since the repairs form a chain.
    /// </summary>
    internal static class LinkedSpeculationProbe
    {
        public const string Switch = "--linked-probe";

        public static int Run(string[] args)
        {
            int at = Array.IndexOf(args, Switch);
            string producer = at + 1 < args.Length ? args[at + 1] : "pyarrow-numeric";
            CodecInputs inputs = CodecInputs.Capture(ProducerStreams.Load(producer).Select(s => s.Bytes));
            var blocks = new List<(int Frame, int DataStart, int DataLength, int Output, int Prefix, bool Alone)>();
            byte[][] frames = inputs.Frames;
            byte[][] outputs = inputs.Destinations;
            var scratch = new byte[4 << 20];
            int total = 0, alone = 0, linkedFrames = 0;
            for (int f = 0; f < frames.Length; f++)
            {
                if (frames[f].Length == 0)
                    continue;
                Lz4FrameDecoder.Decode(frames[f], outputs[f], out _, out _);
                var reader = new Lz4FrameReader(frames[f]);
                int written = 0;
                bool linked = false;
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                        linked = reader.Frame.IsLinked;
                    if (reader.TokenType != Lz4FrameTokenType.Block)
                        continue;
                    int length;
                    if (reader.BlockIsUncompressed)
                    {
                        length = reader.BlockData.Length;
                        blocks.Add((f, reader.TokenStartIndex + 4, length, written, 0, true));
                    }
                    else
                    {
                        int blockMax = reader.Frame.BlockMaximumSize;
                        int decoded = Lz4BlockDecoder.Decode(reader.BlockData, scratch.AsSpan(0, blockMax), 0);
                        int prefix = linked ? Math.Min(written, Lz4FrameConstants.WindowSize) : 0;
                        length = Lz4BlockDecoder.Decode(reader.BlockData, outputs[f].AsSpan(written - prefix, prefix + Math.Min(blockMax, outputs[f].Length - written)), prefix);
                        if (length < 0)
                            throw new InvalidOperationException($"frame {f}: block at {reader.TokenStartIndex} does not decode in place");
                        bool ok = decoded >= 0;
                        if (ok && (decoded != length || !scratch.AsSpan(0, decoded).SequenceEqual(outputs[f].AsSpan(written, length))))
                            throw new InvalidOperationException($"frame {f}: a block decoded alone differs from its sequential bytes");
                        blocks.Add((f, reader.TokenStartIndex + 4, reader.BlockData.Length, written, prefix, ok));
                        if (linked)
                        {
                            total++;
                            if (ok) alone++;
                        }
                    }
                    written += length;
                }
                if (linked)
                    linkedFrames++;
            }

            double Time(Action action)
            {
                for (int i = 0; i < 5; i++)
                    action();
                var times = new List<double>();
                for (int i = 0; i < 15; i++)
                {
                    long start = Stopwatch.GetTimestamp();
                    action();
                    times.Add((Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency);
                }
                times.Sort();
                return times[times.Count / 2];
            }

            var compressed = blocks.Where(b => b.DataLength > 0).ToArray();
            double sequential = Time(() =>
            {
                for (int f = 0; f < frames.Length; f++)
                {
                    if (frames[f].Length > 0)
                        Lz4FrameDecoder.Decode(frames[f], outputs[f], out _, out _);
                }
            });
            double attempts = Time(() =>
            {
                foreach (var b in compressed)
                    Lz4BlockDecoder.Decode(frames[b.Frame].AsSpan(b.DataStart, b.DataLength), scratch.AsSpan(0, 64 << 10), 0);
            });
            double repairs = Time(() =>
            {
                foreach (var b in compressed)
                {
                    if (!b.Alone)
                    {
                        byte[] output = outputs[b.Frame];
                        Lz4BlockDecoder.Decode(frames[b.Frame].AsSpan(b.DataStart, b.DataLength), output.AsSpan(b.Output - b.Prefix, b.Prefix + Math.Min(64 << 10, output.Length - b.Output)), b.Prefix);
                    }
                }
            });
            double best = Math.Max((attempts + repairs) / 2, repairs);
            Console.WriteLine($"linked probe, {producer}: {linkedFrames} linked frames, {total} compressed linked blocks, {alone} ({100.0 * alone / Math.Max(1, total):0.0} %) decode alone, all to their sequential bytes");
            Console.WriteLine($"  sequential decode {sequential:0.000} ms; standalone attempt of every block {attempts:0.000} ms; decode of the blocks that need their prefix {repairs:0.000} ms");
            Console.WriteLine($"  best 2-core speculative schedule: max((attempts + repairs) / 2, repairs) = {best:0.000} ms, {sequential / best:0.00}x the sequential decode (target 1.3x)");
            return 0;
        }
    }
}
