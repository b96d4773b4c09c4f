using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.IO;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// Runs one mutant through liblz4 and through the project (<see cref="Lz4FrameDecoder.Decode"/> and the Arrow
    /// codec's <see cref="Lz4FastCodec.Decompress"/>), into destinations of exact, shorter, longer and zero length that
    /// are slices of larger arrays with sentinels around them and old bytes in them, and names every disagreement.
    /// </summary>
    internal sealed class Oracle : IDisposable
    {
        private const int Guard = 64;
        private const byte GuardByte = 0xC3;

        /// <summary>
        /// <c>--parallel</c>: the project decodes with parallel block decode forced on (4 threads, no minimum length),
        /// and every frame-decoder result is also compared with the sequential decoder's, exception message included.
        /// </summary>
        public static bool ForceParallel;

        /// <summary><c>--stream</c>: each mutant goes through <see cref="StreamCheck"/> (the decoding stream) instead of the destination checks.</summary>
        public static bool Stream;

        /// <summary>Mutants with an independent frame of two or more blocks, which a forced parallel run decodes in parallel.</summary>
        public static long ParallelEligible;

        private static readonly Lz4FrameDecoderOptions ParallelOptions = new(verifyChecksums: true, new Lz4Parallelism(4, 1));

        private readonly Lz4FastCodec _codec = ForceParallel
            ? new(new Lz4FastOptions { MaxDegreeOfParallelism = 4, MinimumParallelLength = 1 })
            : new();
        private readonly Liblz4 _liblz4 = new();
        private readonly Stopwatch _clock = new();

        /// <summary>Ticks (Stopwatch) when the current project call started, 0 between calls: read by the watchdog.</summary>
        public long CallStarted;

        public long SlowestCallTicks { get; private set; }

        public void Dispose()
        {
            _liblz4.Dispose();
            _codec.Dispose();
        }

        public Liblz4 Native => _liblz4;

        public Verdict Check(byte[] input, Random rng)
        {
            Reference reference = _liblz4.Decode(input);
            var verdict = new Verdict(reference);
            if (reference.OverCap)
                return verdict;

            if (Stream)
            {
                StreamCheck.Check(this, input, reference, rng, verdict);
                return verdict;
            }
            if (ForceParallel && HasIndependentBlocks(input))
                Interlocked.Increment(ref ParallelEligible);
            foreach (int length in DestinationLengths(input, reference, rng))
            {
                CheckFrameDecoder(input, reference, length, rng, verdict);
                CheckCodec(input, reference, length, rng, verdict);
            }
            return verdict;
        }

        private static IEnumerable<int> DestinationLengths(byte[] input, Reference reference, Random rng)
        {
            var lengths = new SortedSet<int> { 0 };
            int exact = reference.Accepts ? reference.Output!.Length : reference.PartialLength;
            lengths.Add(exact);
            lengths.Add(exact + 1);
            lengths.Add(exact + 64 + rng.Next(4096));
            if (exact > 0)
            {
                lengths.Add(exact - 1);
                lengths.Add(rng.Next(exact));
            }
            if (!reference.Accepts)
                lengths.Add(1 << 16);
            return lengths;
        }

        private void CheckFrameDecoder(byte[] input, Reference reference, int length, Random rng, Verdict verdict)
        {
            byte[] array = Destination(length, rng);
            var destination = array.AsSpan(Guard, length);
            Lz4FrameDecodeStatus status = default;
            int consumed = 0, written = 0;
            Lz4FrameDecoderOptions options = ForceParallel ? ParallelOptions : default;
            Exception? error = Run(() => status = Lz4FrameDecoder.Decode(input, array.AsSpan(Guard, length), out consumed, out written, options));
            if (!GuardsIntact(array, length))
                verdict.Add("write-outside-destination", $"Lz4FrameDecoder.Decode into {length} bytes");
            if (ForceParallel)
                CompareWithSequential(input, length, rng, status, consumed, written, array, error, verdict);
            if (error is not null)
            {
                CheckException(error, verdict, $"Lz4FrameDecoder.Decode into {length} bytes");
                if (reference.Accepts && error is not NotSupportedException)
                    verdict.Add("liblz4-accepts-project-rejects", $"Decode into {length} bytes threw {error.GetType().Name}: {error.Message}");
                else if (error is NotSupportedException)
                    verdict.Documented("dictionary-frame");
                return;
            }

            switch (status)
            {
                case Lz4FrameDecodeStatus.Done:
                    if (!reference.Accepts)
                        verdict.Add("project-accepts-liblz4-rejects", $"Decode into {length} bytes returned Done ({written} bytes); liblz4 {reference}");
                    else if (consumed != input.Length || written != reference.Output!.Length || !destination.Slice(0, written).SequenceEqual(reference.Output))
                        verdict.Add("different-bytes", $"Decode into {length} bytes: {written} bytes, consumed {consumed}; liblz4 {reference}");
                    break;
                case Lz4FrameDecodeStatus.DestinationTooSmall:
                    if (reference.Accepts && length >= reference.Output!.Length)
                        verdict.Add("liblz4-accepts-project-rejects", $"Decode into {length} bytes said DestinationTooSmall; liblz4 decodes {reference.Output.Length}");
                    break;
                case Lz4FrameDecodeStatus.DictionaryRequired:
                    verdict.Documented("dictionary-frame");
                    break;
            }
        }

        private void CheckCodec(byte[] input, Reference reference, int length, Random rng, Verdict verdict)
        {
            byte[] array = Destination(length, rng);
            int returned = 0;
            Exception? error = Run(() => returned = _codec.Decompress(input, array.AsMemory(Guard, length)));
            if (!GuardsIntact(array, length))
                verdict.Add("write-outside-destination", $"codec into {length} bytes");
            // The codec decodes into the start of a destination with room to spare (a pooled allocator's buffer) and
            // returns the length, for Arrow to check; only a destination too small for the content must fail.
            bool fits = reference.Accepts && length >= reference.Output!.Length;
            if (error is not null)
            {
                CheckException(error, verdict, $"codec into {length} bytes");
                if (fits && error is not NotSupportedException)
                    verdict.Add("liblz4-accepts-project-rejects", $"codec into {length} bytes threw {error.GetType().Name}: {error.Message}");
                else if (error is NotSupportedException)
                    verdict.Documented("dictionary-frame");
                return;
            }
            if (input.Length == 0)
            {
                if (returned != 0)
                    verdict.Add("different-bytes", $"codec of an empty buffer into {length} bytes returned {returned}");
                verdict.Documented("empty-arrow-buffer");
                return;
            }
            if (!reference.Accepts)
                verdict.Add("project-accepts-liblz4-rejects", $"codec into {length} bytes returned {returned}; liblz4 {reference}");
            else if (!fits)
                verdict.Add("codec-accepts-wrong-length", $"codec into {length} bytes returned {returned}; liblz4 decodes {reference.Output!.Length}");
            else if (returned != reference.Output!.Length || !array.AsSpan(Guard, returned).SequenceEqual(reference.Output))
                verdict.Add("different-bytes", $"codec into {length} bytes returned {returned} with other bytes than liblz4");
        }

        /// <summary>The parallel result must be the sequential one: status, counts, bytes, or the same exception and message.</summary>
        private void CompareWithSequential(byte[] input, int length, Random rng, Lz4FrameDecodeStatus status, int consumed, int written, byte[] array, Exception? error, Verdict verdict)
        {
            byte[] sequential = Destination(length, rng);
            Lz4FrameDecodeStatus expectedStatus = default;
            int expectedConsumed = 0, expectedWritten = 0;
            Exception? expectedError = Run(() => expectedStatus = Lz4FrameDecoder.Decode(input, sequential.AsSpan(Guard, length), out expectedConsumed, out expectedWritten));
            string actual = error is null
                ? $"{status} consumed {consumed} written {written}"
                : $"{error.GetType().Name}: {error.Message}";
            string expected = expectedError is null
                ? $"{expectedStatus} consumed {expectedConsumed} written {expectedWritten}"
                : $"{expectedError.GetType().Name}: {expectedError.Message}";
            if (actual != expected)
                verdict.Add("parallel-differs-from-sequential", $"Decode into {length} bytes: parallel {actual}; sequential {expected}");
            else if (error is null && !array.AsSpan(Guard, written).SequenceEqual(sequential.AsSpan(Guard, written)))
                verdict.Add("parallel-differs-from-sequential", $"Decode into {length} bytes: other bytes than sequential");
        }

        public static bool HasIndependentBlocks(byte[] input)
        {
            try
            {
                var reader = new Lz4FrameReader(input, verifyChecksums: false);
                int blocks = 0;
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                        blocks = 0;
                    else if (reader.TokenType == Lz4FrameTokenType.Block && !reader.Frame.IsLinked && ++blocks >= 2)
                        return true;
                }
            }
            catch (InvalidDataException)
            {
                // A prefix may still have had the blocks: counted only when the whole input reads, which is enough for a rate.
            }
            return false;
        }

        private static void CheckException(Exception error, Verdict verdict, string call)
        {
            if (error is InvalidDataException { InnerException: ArrowLz4Fast.Frames.Lz4FrameException })
                return;
            if (error is NotSupportedException && error.Message.Contains("dictionary", StringComparison.Ordinal))
                return;
            verdict.Add("wrong-exception-type", $"{call} threw {error.GetType().FullName}: {error.Message}");
        }

        internal Exception? Run(Action call)
        {
            long start = Stopwatch.GetTimestamp();
            Volatile.Write(ref CallStarted, start);
            try
            {
                call();
                return null;
            }
            catch (Exception e)
            {
                return e;
            }
            finally
            {
                Volatile.Write(ref CallStarted, 0);
                long elapsed = Stopwatch.GetTimestamp() - start;
                if (elapsed > SlowestCallTicks)
                    SlowestCallTicks = elapsed;
            }
        }

        /// <summary>A destination slice pre-filled with old bytes (a random pattern), between two sentinel guards.</summary>
        private static byte[] Destination(int length, Random rng)
        {
            byte[] array = new byte[Guard + length + Guard];
            array.AsSpan(0, Guard).Fill(GuardByte);
            array.AsSpan(Guard + length).Fill(GuardByte);
            byte old = (byte)rng.Next(1, 256);
            for (int i = 0; i < length; i++)
                array[Guard + i] = (byte)(old + (i * 7));
            return array;
        }

        private static bool GuardsIntact(byte[] array, int length) =>
            array.AsSpan(0, Guard).IndexOfAnyExcept(GuardByte) < 0 && array.AsSpan(Guard + length).IndexOfAnyExcept(GuardByte) < 0;
    }

    /// <summary>The findings for one mutant, by class, and the documented disagreements it hit.</summary>
    internal sealed class Verdict
    {
        public Verdict(Reference reference) => Reference = reference;

        public Reference Reference { get; }

        public List<(string Class, string Detail)> Findings { get; } = new();

        public HashSet<string> DocumentedCases { get; } = new();

        public void Add(string findingClass, string detail) => Findings.Add((findingClass, detail));

        public void Documented(string name) => DocumentedCases.Add(name);

        public bool Has(string findingClass) => Findings.Exists(f => f.Class == findingClass);
    }
}
