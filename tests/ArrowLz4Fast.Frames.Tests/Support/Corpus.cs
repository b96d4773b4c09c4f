using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.Json;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// The real-data corpus as the tests use it: the committed corpus/ at the repository root (see
    /// corpus/PROVENANCE.md), and ../shared/corpus beside the repository when it exists, for the large streams that
    /// are not committed. Both are found by <see cref="CorpusLocator"/>, as every other project finds them.
    /// </summary>
    internal static class Corpus
    {
        public static string CommittedDir { get; } = CorpusLocator.Directory;

        public static string SharedDir { get; } = CorpusLocator.SharedDirectory;

        public static bool SharedAvailable => Directory.Exists(Path.Combine(SharedDir, "ipc"));

        /// <summary>IPC streams and files too large to commit; tested from ../shared/corpus when it is there.</summary>
        public static readonly string[] SharedOnlyIpcFiles =
        {
            "ipc/pyarrow/numeric.arrows",
            "ipc/pyarrow/numeric.arrow",
            "ipc/rust/numeric.arrows",
            "ipc/java/numeric.arrows",
            "ipc/rust/incompressible.arrows",
            "ipc/java/incompressible.arrows",
            "ipc/pyarrow/incompressible_minsavings.arrows",
        };

        public static string Committed(string relative) => Path.Combine(CommittedDir, relative);

        public static string Shared(string relative) => Path.Combine(SharedDir, relative);

        /// <summary>Every committed data file of a folder that has an .expected.json sidecar, by relative path.</summary>
        public static IEnumerable<string> DataFiles(string folder) =>
            Directory.EnumerateFiles(Committed(folder), "*.expected.json", SearchOption.AllDirectories)
                .Select(p => p.Substring(0, p.Length - ".expected.json".Length))
                .Where(File.Exists)
                .Select(p => Path.GetRelativePath(CommittedDir, p).Replace('\\', '/'))
                .OrderBy(p => p, StringComparer.Ordinal);

        public static IEnumerable<string> CommittedIpcFiles() => DataFiles("ipc");

        public static JsonElement Sidecar(string path) =>
            JsonDocument.Parse(File.ReadAllBytes(path + ".expected.json")).RootElement.Clone();
    }
}
