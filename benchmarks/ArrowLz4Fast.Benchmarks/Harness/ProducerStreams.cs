using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow.Compression;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// Real LZ4-compressed IPC streams by producer: the committed corpus streams of pyarrow, Arrow Java and arrow-rs,
    /// and for Arrow .NET the synthetic order-lines table written by its own writer with the official codec.
    /// </summary>
    public static class ProducerStreams
    {
        public const string Pyarrow = "pyarrow";
        public const string Java = "java";
        public const string Rust = "rust";
        public const string DotNet = "dotnet";

        public static readonly string[] Producers = { Pyarrow, Java, Rust, DotNet };

        /// <summary>
        /// The producers, plus "&lt;producer&gt;-numeric" for the 1,000,000-row numeric streams (about 9 MB each, not
        /// committed) when ../shared/corpus is beside the repository. <c>ARROWLZ4FAST_BENCH_PRODUCERS</c> (a
        /// comma-separated list) narrows a run to some of them, e.g. to repeat cases a busy machine disturbed.
        /// </summary>
        public static string[] WithSharedNumeric()
        {
            var names = new List<string>(Producers);
            foreach (string producer in new[] { Pyarrow, Java, Rust })
            {
                if (File.Exists(NumericPath(producer)))
                    names.Add(producer + NumericSuffix);
            }
            string? only = Environment.GetEnvironmentVariable("ARROWLZ4FAST_BENCH_PRODUCERS");
            if (!string.IsNullOrEmpty(only))
                names.RemoveAll(n => Array.IndexOf(only.Split(','), n) < 0);
            return names.ToArray();
        }

        private const string NumericSuffix = "-numeric";

        private static string NumericPath(string producer) =>
            Path.Combine(RepositoryPaths.SharedCorpus, "ipc", producer, "numeric.arrows");

        /// <summary>The corpus datasets every producer wrote (see the corpus's ipc/DATASETS.md).</summary>
        public static readonly string[] Datasets = { "strings", "nested_dict", "tiny_batches", "wide", "empty" };

        private static readonly Lazy<byte[]> DotNetTable = new(() =>
            SyntheticTable.WriteStream(SyntheticTable.Batches(), new CompressionCodecFactory()));

        /// <summary>Describes where the producer's streams come from.</summary>
        public static string Describe(string producer) =>
            producer == DotNet
                ? $"Arrow .NET ArrowStreamWriter + Apache.Arrow.Compression: synthetic order lines, {SyntheticTable.DefaultBatches} x {SyntheticTable.DefaultRowsPerBatch} rows"
            : producer.EndsWith(NumericSuffix, StringComparison.Ordinal)
                ? $"../shared/corpus/ipc/{producer.Substring(0, producer.Length - NumericSuffix.Length)}/numeric.arrows"
                : $"corpus ipc/{producer}/{{{string.Join(",", Datasets)}}}.arrows";

        /// <summary>
        /// Every LZ4 stream of the corpus one by one, as "producer/dataset": each .arrows file the corpus commits (all
        /// datasets, not only <see cref="Datasets"/>), the numeric and incompressible streams of ../shared/corpus when
        /// it is there, and "dotnet/orders" for the synthetic table. pyarrow's numeric_zstd is ZSTD and left out.
        /// </summary>
        public static string[] CorpusStreams()
        {
            var names = new SortedSet<string>(StringComparer.Ordinal);
            foreach (string dir in new[] { Path.Combine(RepositoryPaths.Corpus, "ipc"), Path.Combine(RepositoryPaths.SharedCorpus, "ipc") })
            {
                if (!Directory.Exists(dir))
                    continue;
                foreach (string path in Directory.EnumerateFiles(dir, "*.arrows", SearchOption.AllDirectories))
                {
                    string name = Path.GetRelativePath(dir, path).Replace('\\', '/');
                    if (!name.Contains("zstd", StringComparison.Ordinal))
                        names.Add(name.Substring(0, name.Length - ".arrows".Length));
                }
            }
            names.Add(DotNet + "/orders");
            return names.ToArray();
        }

        /// <summary>One stream of <see cref="CorpusStreams"/>, from the committed corpus if it is there, else the shared one.</summary>
        public static byte[] LoadStream(string name)
        {
            if (name == DotNet + "/orders")
                return DotNetTable.Value;
            string committed = Path.Combine(RepositoryPaths.Corpus, "ipc", name + ".arrows");
            return File.ReadAllBytes(File.Exists(committed) ? committed : Path.Combine(RepositoryPaths.SharedCorpus, "ipc", name + ".arrows"));
        }

        public static IReadOnlyList<(string Name, byte[] Bytes)> Load(string producer)
        {
            if (producer == DotNet)
                return new[] { ("dotnet/orders.arrows", DotNetTable.Value) };
            if (producer.EndsWith(NumericSuffix, StringComparison.Ordinal))
            {
                string baseName = producer.Substring(0, producer.Length - NumericSuffix.Length);
                return new[] { ($"{baseName}/numeric.arrows", File.ReadAllBytes(NumericPath(baseName))) };
            }
            if (!Producers.Contains(producer))
                throw new ArgumentOutOfRangeException(nameof(producer), producer, "unknown producer");
            return Datasets
                .Select(d => ($"{producer}/{d}.arrows", File.ReadAllBytes(Path.Combine(RepositoryPaths.Corpus, "ipc", producer, d + ".arrows"))))
                .ToArray();
        }
    }
}
