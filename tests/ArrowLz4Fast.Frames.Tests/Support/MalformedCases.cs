using System;
using System.Collections.Generic;
using System.Text.Json;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>The malformed corpus (corpus/malformed) as test cases: each file, whether it must fail, and destination sizes.</summary>
    public static class MalformedCases
    {
        internal const string DictionaryFrame = "malformed/dict_id_present.lz4";
        internal const int LargerThanAnyPayload = 6 << 20;

        public static IEnumerable<object[]> All()
        {
            foreach (string file in Corpus.DataFiles("malformed"))
            {
                JsonElement sidecar = Corpus.Sidecar(Corpus.Committed(file));
                bool mustFail = sidecar.GetProperty("must_fail").GetBoolean();
                foreach (int size in DestinationSizes(sidecar))
                    yield return new object[] { file, mustFail, size };
            }
        }

        /// <summary>Empty, small, the length the reference tool restored (and one less and more), and larger than any payload.</summary>
        private static SortedSet<int> DestinationSizes(JsonElement sidecar)
        {
            var sizes = new SortedSet<int> { 0, 13, 65536, LargerThanAnyPayload };
            if (sidecar.TryGetProperty("reference", out JsonElement reference)
                && reference.TryGetProperty("lz4_cli", out JsonElement cli)
                && cli.TryGetProperty("output_length", out JsonElement restored)
                && restored.GetInt32() > 0)
            {
                sizes.Add(restored.GetInt32() - 1);
                sizes.Add(restored.GetInt32());
                sizes.Add(restored.GetInt32() + 1);
            }
            return sizes;
        }

        internal static void AssertInvalidDataWithOffset(Exception error, int inputLength)
        {
            // Exactly InvalidDataException (what callers catch), with the offset in its Lz4FrameException.
            long offset = FrameErrors.Of(error).Offset;
            Assert.InRange(offset, 0, inputLength);
            Assert.Contains($"byte offset {offset}", error.Message);
        }
    }
}
