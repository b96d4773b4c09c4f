using System;
using System.IO;

namespace ArrowLz4Fast.Samples
{
    /// <summary>Finds the real pyarrow-written streams of the test corpus, wherever the sample runs from.</summary>
    internal static class SampleFiles
    {
        /// <summary>The pyarrow corpus, relative to the folder that holds ArrowLz4Fast.sln.</summary>
        public const string PyarrowCorpus = "tests/ArrowLz4Fast.Tests/Corpus/ipc/pyarrow";

        /// <summary>
        /// Returns <paramref name="relativePath"/> under the repository root, found by walking up from the build
        /// output (then from the current directory) to the folder that holds ArrowLz4Fast.sln.
        /// </summary>
        public static string Find(string relativePath)
        {
            foreach (string start in new[] { AppContext.BaseDirectory, Environment.CurrentDirectory })
            {
                for (DirectoryInfo? dir = new(start); dir is not null; dir = dir.Parent)
                {
                    if (!File.Exists(Path.Combine(dir.FullName, "ArrowLz4Fast.sln")))
                        continue;
                    string path = Path.Combine(dir.FullName, relativePath);
                    if (File.Exists(path))
                        return path;
                    throw new FileNotFoundException($"{relativePath} is not in the repository at {dir.FullName}.", path);
                }
            }
            throw new FileNotFoundException(
                $"No ArrowLz4Fast.sln above {AppContext.BaseDirectory} or {Environment.CurrentDirectory}; pass the file's path as the first argument.");
        }

        /// <summary>A pyarrow corpus file by name, or <paramref name="argument"/> when the user passed a path.</summary>
        public static string Pyarrow(string name, string? argument = null) =>
            argument ?? Find($"{PyarrowCorpus}/{name}");
    }
}
