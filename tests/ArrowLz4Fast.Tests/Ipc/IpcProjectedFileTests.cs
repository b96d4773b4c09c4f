using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A projection read from a file (on .NET 8, at positions on its handle): a projected LZ4 batch's metadata is served
    /// once the kept buffers' heads are read, and the kept buffers themselves are read when the body is, by the threads
    /// that decode them; the bytes between them never are. Every committed corpus stream written as a file, one field
    /// at a time, equals the codec path's columns, read synchronously and asynchronously.
    /// </summary>
    [Collection(ProcessIoCounted.Name)]
    public sealed class IpcProjectedFileTests : IDisposable
    {
        private const string Strings = "ipc/pyarrow/strings.arrows";

        private readonly ITestOutputHelper _output;
        private readonly string _directory = Path.Combine(Path.GetTempPath(), "ipc-projected-file-" + Guid.NewGuid().ToString("N"));

        public IpcProjectedFileTests(ITestOutputHelper output)
        {
            _output = output;
            Directory.CreateDirectory(_directory);
        }

        public static IEnumerable<object[]> CommittedFiles() => Corpus.CommittedIpcFiles().Select(f => new object[] { f });

        public void Dispose() => Directory.Delete(_directory, recursive: true);

        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public async Task Each_field_of_a_corpus_stream_read_from_a_file_equals_the_codec_paths_column(string file)
        {
            string path = Corpus.Committed(file);
#if WITHOUT_OFFICIAL_CODEC
            if (Corpus.Sidecar(path).GetProperty("codecs").EnumerateArray().Any(c => c.GetString() != "lz4_frame"))
                return;
#endif
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            if (full.Count == 0)
                return;
            int fields = full[0].Schema.FieldsList.Count;
            // Every field of a narrow schema; a spread of a wide one's (its buffers are alike).
            IEnumerable<int> selected = fields <= 8 ? Enumerable.Range(0, fields) : new[] { 0, 1, fields / 2, fields - 1 };
            foreach (int field in selected)
            {
                foreach (bool asynchronous in new[] { false, true })
                {
                    // A minimum parallel length of 1 defers every body with buffers large enough, not only the largest.
                    var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(field), MaxDegreeOfParallelism = 2, MinimumParallelLength = 1 };
                    using FileStream input = File.OpenRead(path);
                    using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, options), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false);
                    var ours = new List<RecordBatch>();
                    while ((asynchronous ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                        ours.Add(batch);
                    List<RecordBatch> expected = full.Select(b => new RecordBatch(new Schema(new[] { b.Schema.GetFieldByIndex(field) }, null), new[] { b.Column(field) }, b.Length)).ToList();
                    ArrowData.AssertSame(expected, ours, allowLongerBuffers: false, $"{file} field {field} async {asynchronous}");
                    ArrowData.DisposeAll(ours);
                }
            }
            ArrowData.DisposeAll(full);
        }

        /// <summary>
        /// A file cut inside a kept buffer after the projected batch's metadata was served: the body is read when it is
        /// served, so the cut is an <see cref="InvalidDataException"/> at the offset where the file now ends (a body
        /// gathered with its metadata would read as before the cut).
        /// </summary>
        [Theory]
        [InlineData(2, false)]
        [InlineData(4, false)]
        [InlineData(2, true)]
        public async Task A_file_cut_inside_a_kept_buffer_after_the_metadata_was_served_is_invalid_data(int degree, bool asynchronous)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            (long offset, long length)[] buffers = IpcMessages.Buffers(bytes.AsSpan(first.Metadata, first.MetadataLength).ToArray());
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(1), MaxDegreeOfParallelism = degree };
            int bodyStart = ProjectedBodyStart(bytes, options);
            string path = Path.Combine(_directory, "shrinking.arrows");
            File.WriteAllBytes(path, bytes);
            // Inside the last buffer of field 1 (buffers 3 to 5 of the batch).
            long cut = first.Body + buffers[5].offset + (buffers[5].length / 2);

            using var input = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            using var stream = new IpcDecompressingStream(input, options);
            var buffer = new byte[16 << 20];
            int served = 0;
            while (served < bodyStart)
                served += stream.Read(buffer, served, bodyStart - served);
            using (var writer = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
                writer.SetLength(cut);

            var error = asynchronous
                ? await Assert.ThrowsAsync<InvalidDataException>(() => stream.ReadAsync(buffer, served, buffer.Length - served))
                : Assert.Throws<InvalidDataException>(() => stream.Read(buffer, served, buffer.Length - served));
            Assert.Contains("ends inside a message body", error.Message, StringComparison.Ordinal);
            Assert.Equal(cut, Assert.IsType<Frames.Lz4FrameException>(error.InnerException).Offset);
        }

        /// <summary>
        /// The calling thread's own reads (Linux counts them per thread) while the wrapper serves everything before a
        /// projected batch's body: the schema, the metadata and each kept buffer's head, not the kept buffers.
        /// </summary>
        [Fact]
        public void Serving_a_projected_batchs_metadata_reads_only_the_kept_buffers_heads()
        {
            if (!File.Exists("/proc/thread-self/io"))
                return;
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            (long offset, long length)[] buffers = IpcMessages.Buffers(bytes.AsSpan(first.Metadata, first.MetadataLength).ToArray());
            long kept = buffers[3].length + buffers[4].length + buffers[5].length;
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(1), MaxDegreeOfParallelism = 2 };
            int bodyStart = ProjectedBodyStart(bytes, options);
            string path = Path.Combine(_directory, "strings.arrows");
            File.WriteAllBytes(path, bytes);

            using var stream = new IpcDecompressingStream(File.OpenRead(path), options);
            var buffer = new byte[bodyStart];
            long before = ThreadBytesRead();
            for (int served = 0; served < bodyStart;)
                served += stream.Read(buffer, served, bodyStart - served);
            long read = ThreadBytesRead() - before;

            _output.WriteLine($"read {read} bytes on the calling thread before the body; the kept buffers hold {kept}, the messages up to the body {first.Body}");
            Assert.True(kept > 100_000, "the kept buffers are what a gather would have copied");
            // Slack for the read of the counter itself and for the file input's buffer of small reads (16 KiB), far
            // below the kept buffers a gather would copy.
            Assert.True(read <= first.Body + (3 * 32) + 4096 + 16384, $"read {read} bytes before the body, more than the {first.Body} bytes of messages, three 32-byte heads and a buffer of small reads");
        }

        /// <summary>
        /// An asynchronous read of a body from a file leaves its buffers to the threads that decode them, as a
        /// synchronous read does, with and without a projection: the package's helper threads read some of them (Linux
        /// counts reads per thread). Whether a helper claims a buffer of one read depends on timing, so up to 20 reads;
        /// a body read whole by the calling thread before its decode leaves the helpers nothing to read in any of them.
        /// </summary>
        [Theory]
        [InlineData(true)]
        [InlineData(false)]
        public async Task An_asynchronous_read_leaves_a_files_buffers_to_the_decoding_threads(bool project)
        {
            if (!Directory.Exists("/proc/self/task"))
                return;
            string path = Path.Combine(_directory, "strings.arrows");
            File.WriteAllBytes(path, File.ReadAllBytes(Corpus.Committed(Strings)));
            var options = new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1 };
            if (project)
                options.Projection = IpcProjection.ByIndex(1);
            long helpersRead = 0;
            for (int attempt = 0; attempt < 20 && helpersRead == 0; attempt++)
            {
                Dictionary<string, long> before = HelperThreadsBytesRead();
                using (var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path), options), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false))
                {
                    while (await reader.ReadNextRecordBatchAsync() is RecordBatch batch)
                        batch.Dispose();
                }
                foreach (KeyValuePair<string, long> helper in HelperThreadsBytesRead())
                    helpersRead += helper.Value - (before.TryGetValue(helper.Key, out long earlier) ? earlier : 0);
                _output.WriteLine($"attempt {attempt}: helper threads read {helpersRead} bytes");
            }
            Assert.True(helpersRead > 0, "no helper thread read any buffer of the file in 20 asynchronous reads");
        }

        /// <summary>Bytes read so far by each of the package's helper threads (named "ArrowLz4Fast helper n"; Linux keeps 15 characters).</summary>
        private static Dictionary<string, long> HelperThreadsBytesRead()
        {
            var read = new Dictionary<string, long>();
            foreach (string task in Directory.GetDirectories("/proc/self/task"))
            {
                try
                {
                    if (File.ReadAllText(Path.Combine(task, "comm")).StartsWith("ArrowLz4Fast he", StringComparison.Ordinal))
                        read[task] = ReadChars(Path.Combine(task, "io"));
                }
                catch (IOException)
                {
                    // The thread exited meanwhile.
                }
            }
            return read;
        }

        /// <summary>
        /// Every byte the process reads while a file is read with a projection (Linux counts them; no other test runs
        /// meanwhile): at most 1.2 times the selected buffers' compressed bytes plus the metadata, and at least the
        /// selected buffers.
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/strings.arrows", 1)]
        [InlineData("ipc/rust/strings.arrows", 0)]
        [InlineData("ipc/java/strings.arrows", 1)]
        public void The_bytes_read_from_a_file_are_the_selected_buffers_and_the_metadata(string file, int field)
        {
            if (!File.Exists("/proc/self/io"))
                return;
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            long selected = 0, bodies = 0;
            foreach (IpcMutator.Message m in IpcMutator.Messages(bytes))
            {
                bodies += m.BodyLength;
                if (m.BodyLength == 0)
                    continue;
                (long offset, long length)[] buffers = IpcMessages.Buffers(bytes.AsSpan(m.Metadata, m.MetadataLength).ToArray());
                for (int b = 3 * field; b < 3 * (field + 1); b++)
                    selected += buffers[b].length;
            }
            long metadata = bytes.Length - bodies;
            string path = Path.Combine(_directory, "counted.arrows");
            File.WriteAllBytes(path, bytes);
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(field), MaxDegreeOfParallelism = 2, MinimumParallelLength = 1 };

            long before = ProcessBytesRead();
            List<RecordBatch> projected = ArrowData.ReadAll(new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path), options), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false));
            long read = ProcessBytesRead() - before;
            int batches = projected.Count;
            ArrowData.DisposeAll(projected);

            _output.WriteLine($"{file}: read {read} of {bytes.Length} bytes; selected buffers {selected}, metadata {metadata}, {batches} batches");
            Assert.True(batches > 0);
            Assert.True(read >= selected, $"read {read} bytes, fewer than the {selected} selected");
            Assert.True(read <= 1.2 * (selected + metadata), $"read {read} bytes, more than 1.2 x ({selected} selected + {metadata} metadata)");
        }

        /// <summary>Where the first batch's body starts in the projected decompressed stream: after the schema and the batch's rewritten metadata.</summary>
        private static int ProjectedBodyStart(byte[] bytes, Lz4FastOptions options)
        {
            using var stream = new IpcDecompressingStream(bytes.AsMemory(), options);
            using var output = new MemoryStream();
            stream.CopyTo(output);
            byte[] decompressed = output.ToArray();
            int schema = 8 + BitConverter.ToInt32(decompressed, 4);
            return schema + 8 + BitConverter.ToInt32(decompressed, schema + 4);
        }

        private static long ThreadBytesRead() => ReadChars("/proc/thread-self/io");

        private static long ProcessBytesRead() => ReadChars("/proc/self/io");

        private static long ReadChars(string io) =>
            long.Parse(File.ReadAllLines(io).First(l => l.StartsWith("rchar:", StringComparison.Ordinal)).Substring(6).Trim(), System.Globalization.CultureInfo.InvariantCulture);

        private static ICompressionCodecFactory Factory() =>
#if WITHOUT_OFFICIAL_CODEC
            new Lz4FastCodecFactory();
#else
            new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
#endif
    }

    /// <summary>Tests that count the process's reads: they run with no other test at the same time.</summary>
    [CollectionDefinition(Name, DisableParallelization = true)]
    public sealed class ProcessIoCounted
    {
        public const string Name = "Process I/O counted";
    }
}
