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
}
