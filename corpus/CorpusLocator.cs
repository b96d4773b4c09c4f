using System;
using System.IO;
using System.Linq;
using System.Reflection;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The one way every project of the repository (tests, benchmarks, samples, the fuzzer, the inspect tool's tests)
    /// finds the real-data corpus: <c>corpus/</c> at the repository root (see corpus/PROVENANCE.md), and the large
    /// streams in <c>../shared/corpus</c> beside the repository when it is there. Compiled into each project that sets
    /// <c>UsesCorpus</c> (Directory.Build.targets), which also records the repository root at build time; when the
    /// output has moved, the folder holding ArrowLz4Fast.sln is found by walking up from the output or the working
    /// directory.
    /// </summary>
    internal static class CorpusLocator
    {
        private static readonly Lazy<string> s_root = new(FindRoot);

        /// <summary>The folder holding ArrowLz4Fast.sln.</summary>
        public static string RepositoryRoot => s_root.Value;

        /// <summary>The committed corpus: <c>corpus/</c> at the repository root.</summary>
        public static string Directory => Path.Combine(RepositoryRoot, "corpus");

        /// <summary>The shared corpus beside the repository (<c>../shared/corpus</c>); may be absent.</summary>
        public static string SharedDirectory => Path.GetFullPath(Path.Combine(RepositoryRoot, "..", "shared", "corpus"));

        /// <summary>A committed corpus file by its path relative to <see cref="Directory"/>, e.g. <c>ipc/pyarrow/strings.arrows</c>.</summary>
        public static string File(string relativePath) => Path.Combine(Directory, relativePath);

        private static string FindRoot()
        {
            string? recorded = typeof(CorpusLocator).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
                .FirstOrDefault(a => a.Key == "ArrowLz4Fast.RepositoryRoot")?.Value;
            if (recorded is not null && System.IO.File.Exists(Path.Combine(recorded, "ArrowLz4Fast.sln")))
                return Path.GetFullPath(recorded);
            foreach (string start in new[] { AppContext.BaseDirectory, Environment.CurrentDirectory })
            {
                for (DirectoryInfo? dir = new(start); dir is not null; dir = dir.Parent)
                {
                    if (System.IO.File.Exists(Path.Combine(dir.FullName, "ArrowLz4Fast.sln")))
                        return dir.FullName;
                }
            }
            throw new DirectoryNotFoundException(
                $"No ArrowLz4Fast.sln above {AppContext.BaseDirectory} or {Environment.CurrentDirectory}: run from inside the repository, or pass a file's path.");
        }
    }
}
