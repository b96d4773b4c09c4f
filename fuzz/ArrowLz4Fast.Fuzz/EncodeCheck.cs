using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// <c>--encode</c>: the package's block encoder (levels 0-2) against liblz4's <c>LZ4_compress_default</c>. Every
    /// mutant's bytes, and when liblz4 decodes the mutant, its decoded output (real column data, up to 4 MiB), are
    /// compressed by both into the same capacity: one byte under the input (what the frame encoder asks for), the
    /// LZ4 bound, or a random one. The project must fit exactly when liblz4 does, with liblz4's bytes, and write
    /// nothing past the capacity (sentinel bytes after it). Class <c>encode-differs</c>.
    /// </summary>
    internal static class EncodeCheck
    {
        private const int InputCap = 4 << 20;
        private const int SentinelLength = 64;

        public static int Run(FuzzOptions options, Mutator mutator)
        {
            long done = 0, inputs = 0, fitted = 0;
            var findings = new ConcurrentQueue<string>();
            var clock = Stopwatch.StartNew();
            var workers = Enumerable.Range(0, options.Threads).Select(w => new Thread(() =>
            {
                using var oracle = new Oracle();
                for (long i = options.Start + w; i < options.Start + options.Count; i += options.Threads)
                {
                    (byte[] data, string recipe) = Replay.Mutant(mutator, oracle, options.Seed, i);
                    Random random = Mutator.RandomFor(options.Seed ^ 0xE7C0DEUL, i);
                    Reference decoded = oracle.Native.Decode(data);
                    foreach (byte[] input in decoded.Accepts && decoded.Output!.Length > 0 ? new[] { data, decoded.Output } : new[] { data })
                    {
                        ReadOnlySpan<byte> source = input.AsSpan(0, Math.Min(input.Length, InputCap));
                        int bound = Liblz4.CompressBound(source.Length);
                        int capacity = random.Next(3) switch
                        {
                            0 => Math.Max(0, source.Length - 1),
                            1 => bound,
                            _ => random.Next(0, bound + 1),
                        };
                        string? difference = Compare(source, capacity);
                        Interlocked.Increment(ref inputs);
                        if (difference == "fits")
                            Interlocked.Increment(ref fitted);
                        else if (difference != null)
                            findings.Enqueue($"--seed {options.Seed} --index {i} [{recipe}] {(ReferenceEquals(input, data) ? "mutant bytes" : "liblz4's output")}, {source.Length} bytes into {capacity}: {difference}");
                    }
                    long n = Interlocked.Increment(ref done);
                    if (n % 100_000 == 0)
                        Console.WriteLine($"fuzz: encode: {n:N0} mutants, {n / clock.Elapsed.TotalSeconds:N0}/s, {findings.Count} finding(s)");
                }
            })).ToList();
            workers.ForEach(t => t.Start());
            workers.ForEach(t => t.Join());
            clock.Stop();

            Console.WriteLine($"fuzz: encode: {done:N0} mutants, {inputs:N0} inputs compressed by both in {clock.Elapsed.TotalSeconds:N1} s ({done / clock.Elapsed.TotalSeconds:N0} mutants/s); {fitted:N0} fitted and were compared byte for byte, the rest did not fit for either");
            if (findings.IsEmpty)
            {
                Console.WriteLine($"fuzz: encode: clean: 0 findings in {done:N0} mutants (seed {options.Seed})");
                return 0;
            }
            Console.WriteLine($"fuzz: FINDING encode-differs: {findings.Count:N0} input(s)");
            foreach (string finding in findings.Take(Math.Max(1, options.Examples)))
                Console.WriteLine($"  {finding}");
            return 1;
        }

        /// <summary>Null when neither fits, "fits" when both fit with the same bytes, else what differs.</summary>
        private static string? Compare(ReadOnlySpan<byte> source, int capacity)
        {
            byte[] expected = new byte[capacity];
            byte[] actual = new byte[capacity + SentinelLength];
            actual.AsSpan(capacity).Fill(0xA5);
            int want = Liblz4.CompressDefault(source, expected);
            int got = Lz4BlockEncoder.Encode(source, actual.AsSpan(0, capacity), LZ4Level.L00_FAST);
            if (actual.AsSpan(capacity).IndexOfAnyExcept((byte)0xA5) >= 0)
                return "wrote past the capacity";
            if (source.Length == 0)
                return got == 0 ? null : $"empty input gave {got}";
            if (want == 0)
                return got == -1 ? null : $"liblz4 does not fit, the project wrote {got} bytes";
            if (got != want)
                return $"liblz4 wrote {want} bytes, the project {(got < 0 ? "did not fit" : got + " bytes")}";
            return expected.AsSpan(0, want).SequenceEqual(actual.AsSpan(0, got)) ? "fits" : $"same length {want}, different bytes";
        }
    }
}
