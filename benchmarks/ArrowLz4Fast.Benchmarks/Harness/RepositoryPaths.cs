using System;
using System.IO;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The repository and its corpus, for the benchmarks and the replay demo: <see cref="CorpusLocator"/>, which every
    /// project uses, finds them from wherever the process runs (BenchmarkDotNet's generated projects under bin/ too).
    /// </summary>
    public static class RepositoryPaths
    {
        public static string Root => CorpusLocator.RepositoryRoot;

        /// <summary>The committed corpus (corpus/ at the repository root).</summary>
        public static string Corpus => CorpusLocator.Directory;

        /// <summary>The shared corpus beside the repository (../shared/corpus), which CI provides; may be absent.</summary>
        public static string SharedCorpus => CorpusLocator.SharedDirectory;
    }
}
