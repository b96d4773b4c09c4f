using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
#if !WITHOUT_OFFICIAL_CODEC
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;
#endif

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Real Arrow IPC streams and files written by pyarrow 26 (Arrow C++), arrow-rs 60 and Arrow Java 19, read by
    /// Apache.Arrow's own readers with the factory: every decompressed buffer must hash to what the reference liblz4
    /// produced, and every batch must equal what the official codec (Apache.Arrow.Compression) reads.
    /// </summary>
    public class IpcCorpusTests
    {
        private readonly ITestOutputHelper _output;

        public IpcCorpusTests(ITestOutputHelper output) => _output = output;

        public static IEnumerable<object[]> CommittedFiles() => Corpus.CommittedIpcFiles().Select(f => new object[] { f });

        public static IEnumerable<object[]> SharedOnlyFiles() => Corpus.SharedOnlyIpcFiles.Select(f => new object[] { f });

        [Fact]
        public void Every_producer_is_in_the_committed_corpus()
        {
            var files = Corpus.CommittedIpcFiles().ToList();
            foreach (string producer in new[] { "pyarrow", "rust", "java" })
                Assert.True(files.Count(f => f.StartsWith($"ipc/{producer}/", System.StringComparison.Ordinal)) >= 5, producer);
        }

        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public void Committed_stream_decodes_to_the_reference_bytes_and_the_official_batches(string file) =>
            AssertMatchesReference(Corpus.Committed(file), file);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedOnlyFiles))]
        public void Large_shared_stream_decodes_to_the_reference_bytes_and_the_official_batches(string file) =>
            AssertMatchesReference(Corpus.Shared(file), file);

        private void AssertMatchesReference(string path, string file)
        {
            JsonElement sidecar = Corpus.Sidecar(path);
#if WITHOUT_OFFICIAL_CODEC
            // Built against an Apache.Arrow older than any Apache.Arrow.Compression: the reference digests alone.
            if (sidecar.GetProperty("codecs").EnumerateArray().Any(c => c.GetString() != "lz4_frame"))
                return;
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());
            List<RecordBatch> ours = ArrowData.ReadAll(path, recorder);
#else
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory(new OfficialFactory()));

            List<RecordBatch> ours = ArrowData.ReadAll(path, recorder);
            List<RecordBatch> official = ArrowData.ReadAll(path, new OfficialFactory());
#endif

            // Arrow hands the codec every buffer that has a prefix (metadata length > 0) other than -1 (stored raw), in
            // message order. Java's bare 0 prefix for an empty buffer is handed over as an empty frame.
            var expected = sidecar.GetProperty("messages").EnumerateArray()
                .Where(m => m.TryGetProperty("buffers", out _))
                .SelectMany(m => m.GetProperty("buffers").EnumerateArray())
                .Where(b => b.GetProperty("length").GetInt64() > 0 && b.GetProperty("uncompressed_length").GetInt64() >= 0)
                .Select(b => (Length: (int)b.GetProperty("uncompressed_length").GetInt64(), Sha256: b.GetProperty("sha256").GetString()))
                .ToList();
            Assert.Equal(expected.Count, recorder.Decompressed.Count);
            for (int i = 0; i < expected.Count; i++)
            {
                Assert.True(expected[i].Length == recorder.Decompressed[i].Length, $"{file}: buffer {i}: {recorder.Decompressed[i].Length} bytes, expected {expected[i].Length}");
                Assert.True(expected[i].Sha256 == recorder.Decompressed[i].Sha256, $"{file}: buffer {i} ({expected[i].Length} bytes) differs from the reference");
            }

            int batches = sidecar.GetProperty("messages").EnumerateArray().Count(m => m.GetProperty("type").GetString() == "record_batch");
            Assert.Equal(batches, ours.Count);
#if !WITHOUT_OFFICIAL_CODEC
            ArrowData.AssertSame(official, ours);
#endif
            _output.WriteLine($"{file}: {ours.Count} batches, {expected.Count} decompressed buffers match the reference");
        }
    }
}
