using System;
using System.IO;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// Finds the repository from wherever the process runs: BenchmarkDotNet runs each benchmark from a generated
    /// project under bin/, the samples from their own bin/, so both walk up to the folder holding the solution.
    /// </summary>
    public static class RepositoryPaths
    {
        private static readonly Lazy<string> RootLazy = new(FindRoot);

        public static string Root => RootLazy.Value;

        /// <summary>The committed corpus (tests/ArrowLz4Fast.Tests/Corpus).</summary>
        public static string Corpus => Path.Combine(Root, "tests", "ArrowLz4Fast.Tests", "Corpus");

        /// <summary>The shared corpus beside the repository (../shared/corpus), which CI provides; may be absent.</summary>
        public static string SharedCorpus => Path.GetFullPath(Path.Combine(Root, "..", "shared", "corpus"));

        private static string FindRoot()
        {
            foreach (string start in new[] { AppContext.BaseDirectory, Directory.GetCurrentDirectory() })
            {
                for (DirectoryInfo? dir = new(start); dir != null; dir = dir.Parent)
                {
                    if (File.Exists(Path.Combine(dir.FullName, "ArrowLz4Fast.sln")))
                        return dir.FullName;
                }
            }
            throw new DirectoryNotFoundException(
                $"Cannot find ArrowLz4Fast.sln above {AppContext.BaseDirectory}; run from inside the repository.");
        }
    }
}
