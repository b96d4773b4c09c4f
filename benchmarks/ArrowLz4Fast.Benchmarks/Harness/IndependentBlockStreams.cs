using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The shape Arrow Go and python-lz4 write (issue #35): a corpus stream's batches read back and written again by
    /// this package's writer with <see cref="Lz4FastOptions.BlockSize"/> 64 KiB, so that every buffer is a frame of
    /// independent 64 KiB blocks (1-2 MB buffers for the numeric stream's 250,000-row batches).
    /// </summary>
    public static class IndependentBlockStreams
    {
        public const string Prefix = "64k-independent/";

        /// <summary>"64k-independent/&lt;producer&gt;/&lt;dataset&gt;": that corpus stream rewritten; the numeric ones come from ../shared/corpus.</summary>
        public static byte[] Load(string name)
        {
            string source = name.Substring(Prefix.Length);
            byte[] bytes = source.EndsWith("/numeric", System.StringComparison.Ordinal)
                ? File.ReadAllBytes(Path.Combine(RepositoryPaths.SharedCorpus, "ipc", source + ".arrows"))
                : ProducerStreams.LoadStream(source);
            return Rewrite(bytes, 64 * 1024);
        }

        public static byte[] Rewrite(byte[] stream, int blockSize)
        {
            var batches = new List<RecordBatch>();
            using (var reader = new ArrowStreamReader(new MemoryStream(stream, writable: false), new Lz4FastCodecFactory()))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batches.Add(batch);
            }
            byte[] bytes = SyntheticTable.WriteStream(batches, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = blockSize }));
            foreach (RecordBatch batch in batches)
                batch.Dispose();
            return bytes;
        }
    }
}
