using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>Regenerating a mutant from (seed, index), and re-checking one with everything printed.</summary>
    internal static class Replay
    {
        /// <summary>
        /// Mutant <paramref name="index"/>: the mutator's bytes, then for half of the mutants whose only defect is a
        /// stale content checksum, that checksum recomputed from liblz4's output, so sequence edits reach the
        /// comparison of bytes instead of stopping at the checksum.
        /// </summary>
        public static (byte[] Data, string Recipe) Mutant(Mutator mutator, Oracle oracle, ulong seed, long index)
        {
            (byte[] data, string recipe) = mutator.Create(seed, index);
            if (Mutator.RandomFor(seed ^ 0xC0FFEEUL, index).Next(2) == 0 && FixContentChecksum(data, oracle.Native))
                recipe += " content-checksum-fixed";
            return (data, recipe);
        }

        private static bool FixContentChecksum(byte[] data, Liblz4 liblz4)
        {
            FrameLayout? layout = FrameLayout.Parse(data);
            if (layout is null || !layout.ContentChecksum || layout.EndMarkAt < 0 || layout.EndMarkAt + 8 != data.Length)
                return false;
            Reference reference = liblz4.Decode(data);
            if (reference.Accepts || reference.Error is null || !reference.Error.Contains("contentChecksum", StringComparison.Ordinal))
                return false;
            BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan(data.Length - 4), XXH32.DigestOf(liblz4.PartialOutput(reference.PartialLength)));
            return true;
        }

        public static int One(Mutator mutator, ulong seed, long index)
        {
            using var oracle = new Oracle();
            (byte[] data, string recipe) = Mutant(mutator, oracle, seed, index);
            Verdict verdict = oracle.Check(data, Mutator.RandomFor(seed, index));
            Console.WriteLine($"mutant --seed {seed} --index {index}: {data.Length} bytes [{recipe}]");
            Console.WriteLine(Convert.ToHexString(data.AsSpan(0, Math.Min(data.Length, 512))) + (data.Length > 512 ? "…" : ""));
            Console.WriteLine($"liblz4: {verdict.Reference}");
            foreach (string d in verdict.DocumentedCases)
                Console.WriteLine($"documented: {d}");
            foreach ((string cls, string detail) in verdict.Findings)
                Console.WriteLine($"FINDING {cls}: {detail}");
            if (verdict.Findings.Count == 0)
                Console.WriteLine("no finding: the project agrees with liblz4");
            return verdict.Findings.Count == 0 ? 0 : 1;
        }
    }
}
