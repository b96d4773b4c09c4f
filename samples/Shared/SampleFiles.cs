using System;
using System.IO;

namespace ArrowLz4Fast.Samples
{
    /// <summary>Finds the real pyarrow-written streams of the test corpus, wherever the sample runs from.</summary>
    internal static class SampleFiles
    {
        /// <summary>A pyarrow corpus file by name (found by <see cref="CorpusLocator"/>), or <paramref name="argument"/> when the user passed a path.</summary>
        public static string Pyarrow(string name, string? argument = null)
        {
            if (argument is not null)
                return argument;
            string path = CorpusLocator.File($"ipc/pyarrow/{name}");
            return File.Exists(path) ? path : throw new FileNotFoundException($"{name} is not in the corpus at {CorpusLocator.Directory}.", path);
        }
    }
}
