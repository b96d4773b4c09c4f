using System.Collections.Generic;
using System.Linq;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>The liblz4-agreement corpus (corpus/liblz4-agreement) by liblz4's verdict, as test cases.</summary>
    public static class Liblz4Cases
    {
        internal const string Folder = "liblz4-agreement";

        /// <summary>The one documented disagreement here: a frame naming a dictionary is declined (see docs/correctness.md, "Decoding exactly as liblz4").</summary>
        internal const string DictionaryFrame = "liblz4-agreement/dict-id-frame.lz4";

        internal static readonly byte[] PriorContents = { 0x00, 0xAB, 0xFF, 0x5A };

        public static IEnumerable<object[]> Accepted() => Files("accepts").Where(f => f != DictionaryFrame).Select(f => new object[] { f });

        public static IEnumerable<object[]> Rejected() => Files("rejects").Select(f => new object[] { f });

        private static IEnumerable<string> Files(string verdict) =>
            Corpus.DataFiles(Folder).Where(f => Corpus.Sidecar(Corpus.Committed(f)).GetProperty("liblz4").GetString() == verdict);
    }
}
