using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>A theory over the large streams in ../shared/corpus; reported as skipped, with the reason, when that folder is absent.</summary>
    public sealed class SharedCorpusTheoryAttribute : TheoryAttribute
    {
        public SharedCorpusTheoryAttribute()
        {
            if (!Corpus.SharedAvailable)
                Skip = $"../shared/corpus not found at {Corpus.SharedDir}: the large numeric/incompressible streams are not tested in this run";
        }
    }

    /// <summary>
    /// A theory that runs the reference <c>lz4</c> CLI: skipped, with the reason, on a machine without it, so a
    /// fresh clone with only the .NET SDK tests itself; under <c>CI=true</c> it always runs, and a missing CLI fails.
    /// </summary>
    public sealed class Lz4CliTheoryAttribute : TheoryAttribute
    {
        public Lz4CliTheoryAttribute()
        {
            bool ci = string.Equals(System.Environment.GetEnvironmentVariable("CI"), "true", System.StringComparison.OrdinalIgnoreCase);
            if (!ci && !ReferenceCli.Available)
                Skip = "the reference lz4 CLI is not installed (apt-get install lz4): written frames are not checked with it in this run";
        }
    }
}
