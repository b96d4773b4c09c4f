using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
#if !WITHOUT_OFFICIAL_CODEC
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;
#endif

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Projection on <see cref="IpcDecompressingStream"/> (<see cref="Lz4FastOptions.Projection"/>): on every corpus
    /// stream and every subset of 1 field (and of 2 and 3 fields, all or a deterministic sample), the selected columns
    /// equal the codec path's reading every column, from memory, a plain stream and a file; unselected buffers are
    /// neither decompressed (a broken frame there reads fine) nor read (a counting stream); selecting every field reads
    /// byte for byte as no projection.
    /// </summary>
    public sealed class IpcProjectionTests : IDisposable
    {
        private const int MaxPairs = 24;
        private const int MaxTriples = 16;

        private readonly ITestOutputHelper _output;
        private readonly string _directory = Path.Combine(Path.GetTempPath(), "ipc-projection-" + Guid.NewGuid().ToString("N"));

        public IpcProjectionTests(ITestOutputHelper output)
        {
            _output = output;
            Directory.CreateDirectory(_directory);
        }

        public enum Input
        {
            Memory,
            PlainStream,
            File,
        }

        public static IEnumerable<object[]> CommittedFiles() => Corpus.CommittedIpcFiles().Select(f => new object[] { f });

        public static IEnumerable<object[]> SharedOnlyFiles() => Corpus.SharedOnlyIpcFiles.Select(f => new object[] { f });

        public void Dispose() => Directory.Delete(_directory, recursive: true);

        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public void Every_subset_of_a_committed_stream_equals_the_codec_paths_columns(string file) =>
            AssertSubsets(Corpus.Committed(file), file);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedOnlyFiles))]
        public void Every_subset_of_a_large_shared_stream_equals_the_codec_paths_columns(string file) =>
            AssertSubsets(Corpus.Shared(file), file);

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        [InlineData("ipc/rust/strings.arrows")]
        public void An_ipc_file_projects_as_its_stream(string file)
        {
            List<RecordBatch> full = ArrowData.ReadAll(Corpus.Committed(file), Factory());
            byte[] ipcFile = IpcWriter.Write(full, Factory(), fileFormat: true);
            int fields = full[0].Schema.FieldsList.Count;
            foreach (int[] subset in Subsets(fields).Take(12))
            {
                foreach (Input input in new[] { Input.Memory, Input.File })
                    AssertProjected(full, subset, Read(ipcFile, IpcProjection.ByIndex(subset), input), $"{file} (file format) {input} [{string.Join(",", subset)}]");
            }
            ArrowData.DisposeAll(full);
        }

        [Fact]
        public async Task A_projection_read_asynchronously_from_a_plain_stream_equals_the_codec_paths_columns()
        {
            string path = Corpus.Committed("ipc/pyarrow/nested_dict.arrows");
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            byte[] bytes = File.ReadAllBytes(path);
            for (int field = 0; field < full[0].Schema.FieldsList.Count; field++)
            {
                var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(field) };
                using var reader = new ArrowStreamReader(new IpcDecompressingStream(new TrickleStream(bytes, field, 1 << 12), options), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false);
                var batches = new List<RecordBatch>();
                while (await reader.ReadNextRecordBatchAsync() is RecordBatch batch)
                    batches.Add(batch);
                AssertProjected(full, new[] { field }, batches, $"async field {field}");
            }
            ArrowData.DisposeAll(full);
        }

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        public void A_stream_wrapped_in_an_lz4_frame_projects_through_Lz4FramedArrow(string file)
        {
            string path = Corpus.Committed(file);
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            byte[] ipc = File.ReadAllBytes(path);
            var framed = new byte[Frames.Lz4FrameEncoder.GetMaxEncodedLength(ipc.Length)];
            Assert.True(Frames.Lz4FrameEncoder.TryEncode(ipc, framed, out int written));
            foreach (int[] subset in Subsets(full[0].Schema.FieldsList.Count).Take(8))
            {
                var reader = Lz4FramedArrow.CreateProjectedStreamReader(new MemoryStream(framed, 0, written), IpcProjection.ByIndex(subset));
                AssertProjected(full, subset, ArrowData.ReadAll(reader), $"framed [{string.Join(",", subset)}]");
            }
            ArrowData.DisposeAll(full);
        }

        // docs/projection.md, the snippet (kept verbatim between the markers).
        [Fact]
        public void The_docs_snippet_reads_two_columns_of_a_file()
        {
            var table = new RecordBatch.Builder()
                .Append("id", false, c => c.Int64(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => (long)i))))
                .Append("name", false, c => c.String(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => $"n{i}"))))
                .Append("price", false, c => c.Double(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => i * 0.5))))
                .Build();
            string path = Path.Combine(_directory, "table.arrow");
            File.WriteAllBytes(path, IpcWriter.Write(new[] { table }, new Lz4FastCodecFactory(), fileFormat: true));
            long rows = 0, columns = 0;

            // SNIPPET
            var options = new Lz4FastOptions { Projection = IpcProjection.ByName("price", "id") };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path), options), SlabMemoryAllocator.Shared);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                using (batch)
                {
                    rows += batch.Length;
                    columns = batch.ColumnCount; // 2: id, then price (schema order)
                }
            }
            // SNIPPET

            Assert.Equal(1000, rows);
            Assert.Equal(2, columns);
            Assert.Equal(new[] { "id", "price" }, reader.Schema.FieldsList.Select(f => f.Name));
            table.Dispose();
        }

        [Fact]
        public void An_empty_projection_reads_the_batches_without_columns()
        {
            string path = Corpus.Committed("ipc/pyarrow/nested_dict.arrows");
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            foreach (Input input in new[] { Input.Memory, Input.PlainStream, Input.File })
                AssertProjected(full, System.Array.Empty<int>(), Read(File.ReadAllBytes(path), IpcProjection.ByIndex(), input), $"empty {input}");
            ArrowData.DisposeAll(full);
        }

        [Fact]
        public void Fields_named_in_any_order_come_in_schema_order()
        {
            string path = Corpus.Committed("ipc/pyarrow/nested_dict.arrows");
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            Assert.True(full[0].Schema.FieldsList.Count >= 3);
            string[] names = { full[0].Schema.GetFieldByIndex(2).Name, full[0].Schema.GetFieldByIndex(0).Name };
            List<RecordBatch> projected = Read(File.ReadAllBytes(path), IpcProjection.ByName(names), Input.Memory);
            AssertProjected(full, new[] { 0, 2 }, projected, "by name");
            ArrowData.DisposeAll(full);
        }

        [Fact]
        public void A_field_the_schema_lacks_is_invalid_data_at_the_schema_and_a_repeated_one_an_argument_error()
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            var e = Assert.Throws<InvalidDataException>(() => Read(bytes, IpcProjection.ByName("no such field"), Input.Memory));
            Assert.Contains("'no such field'", e.Message, StringComparison.Ordinal);
            Assert.Throws<InvalidDataException>(() => Read(bytes, IpcProjection.ByIndex(1000), Input.Memory));
            Assert.Throws<ArgumentException>(() => IpcProjection.ByName("a", "a"));
            Assert.Throws<ArgumentException>(() => IpcProjection.ByIndex(2, 2));
            Assert.Throws<ArgumentOutOfRangeException>(() => IpcProjection.ByIndex(-1));
        }

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/pyarrow/wide.arrows")]
        [InlineData("ipc/rust/strings.arrows")]
#if !WITHOUT_OFFICIAL_CODEC
        // ZSTD needs the official codec as the inner factory, which the lower-bound build of Apache.Arrow lacks.
        [InlineData("ipc/pyarrow/numeric_zstd.arrows")]
#endif
        public void Selecting_every_field_reads_byte_for_byte_as_no_projection(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            byte[] plain = Drain(bytes, null);
            int fields = ArrowData.ReadAll(Corpus.Committed(file), Factory()).Select(b => { int n = b.Schema.FieldsList.Count; b.Dispose(); return n; }).First();
            Assert.Equal(plain, Drain(bytes, IpcProjection.ByIndex(Enumerable.Range(0, fields))));
        }

        [Theory]
        [InlineData(Input.Memory)]
        [InlineData(Input.PlainStream)]
        [InlineData(Input.File)]
        public void An_unselected_buffer_is_never_decompressed(Input input)
        {
            string path = Corpus.Committed("ipc/pyarrow/strings.arrows");
            byte[] bytes = File.ReadAllBytes(path);
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            int fields = full[0].Schema.FieldsList.Count;
            int[] buffersOf = BufferCounts(full[0].Schema);
            int lastFirst = buffersOf.Take(fields - 1).Sum();

            // Break the frame magic of every buffer of the last field, in every record batch.
            byte[] broken = (byte[])bytes.Clone();
            int brokenBuffers = 0;
            foreach (IpcMutator.Message m in IpcMutator.Messages(bytes).Where(m => m.Lz4 && m.BodyLength > 0))
            {
                (long offset, long length)[] buffers = IpcMessages.Buffers(bytes.AsSpan(m.Metadata, m.MetadataLength).ToArray());
                for (int b = lastFirst; b < lastFirst + buffersOf[fields - 1]; b++)
                {
                    if (buffers[b].length < 12 || BitConverter.ToInt64(bytes, m.Body + (int)buffers[b].offset) < 0)
                        continue;
                    broken[m.Body + (int)buffers[b].offset + 8] ^= 0xFF;
                    brokenBuffers++;
                }
            }
            Assert.True(brokenBuffers > 0);

            int[] others = Enumerable.Range(0, fields - 1).ToArray();
            AssertProjected(full, others, Read(broken, IpcProjection.ByIndex(others), input), "with the last field broken");
            Assert.Throws<InvalidDataException>(() => Read(broken, null, input));
            ArrowData.DisposeAll(full);
        }

        /// <summary>
        /// A seekable stream that is neither a file nor memory (the counting stream: the plain input, which seeks past
        /// unselected bytes), read synchronously and asynchronously, on both targets; a stream that cannot seek is read
        /// whole, the unselected bytes into a scratch array.
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/wide.arrows", true, false)]
        [InlineData("ipc/pyarrow/wide.arrows", true, true)]
        [InlineData("ipc/pyarrow/wide.arrows", false, false)]
        [InlineData("ipc/pyarrow/wide.arrows", false, true)]
        [InlineData("ipc/pyarrow/strings.arrows", true, false)]
        [InlineData("ipc/pyarrow/strings.arrows", true, true)]
        [InlineData("ipc/rust/wide.arrows", true, false)]
        [InlineData("ipc/rust/wide.arrows", true, true)]
        public async Task Unselected_bytes_are_not_read_from_a_seekable_input(string file, bool seekable, bool asynchronous)
        {
            string path = Corpus.Committed(file);
            byte[] bytes = File.ReadAllBytes(path);
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            Schema schema = full[0].Schema;
            int[] buffersOf = BufferCounts(schema);
            int field = schema.FieldsList.Count - 1;
            int first = buffersOf.Take(field).Sum();

            long selected = 0, bodies = 0;
            foreach (IpcMutator.Message m in IpcMutator.Messages(bytes))
            {
                bodies += m.BodyLength;
                if (m.BodyLength == 0)
                    continue;
                (long offset, long length)[] buffers = IpcMessages.Buffers(bytes.AsSpan(m.Metadata, m.MetadataLength).ToArray());
                for (int b = first; b < first + buffersOf[field]; b++)
                    selected += buffers[b].length;
            }
            long metadata = bytes.Length - bodies;

            var counting = new CountingStream(bytes, seekable);
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(field), MaxDegreeOfParallelism = 2 };
            var projected = new List<RecordBatch>();
            using (var reader = new ArrowStreamReader(new IpcDecompressingStream(counting, options), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false))
            {
                while ((asynchronous ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                    projected.Add(batch);
            }
            AssertProjected(full, new[] { field }, projected, $"counted, async {asynchronous}");
            _output.WriteLine($"{file} async {asynchronous}: read {counting.BytesRead} of {bytes.Length} bytes; selected buffers {selected}, metadata {metadata}");
            if (seekable)
                Assert.True(counting.BytesRead <= 1.2 * (selected + metadata), $"read {counting.BytesRead} bytes, more than 1.2 x ({selected} selected + {metadata} metadata)");
            else
                Assert.Equal(bytes.Length, counting.BytesRead);
            ArrowData.DisposeAll(full);
        }

        private void AssertSubsets(string path, string file)
        {
#if WITHOUT_OFFICIAL_CODEC
            if (Corpus.Sidecar(path).GetProperty("codecs").EnumerateArray().Any(c => c.GetString() != "lz4_frame"))
                return;
#endif
            List<RecordBatch> full = ArrowData.ReadAll(path, Factory());
            byte[] bytes = File.ReadAllBytes(path);
            int fields = full.Count > 0 ? full[0].Schema.FieldsList.Count : SchemaOf(bytes).FieldsList.Count;
            int count = 0;
            foreach (int[] subset in Subsets(fields))
            {
                var input = (Input)(count % 3);
                // Every other subset with the verifying read, which walks the projected batch's columns.
                bool verify = count++ % 2 == 0;
                AssertProjected(full, subset, Read(bytes, IpcProjection.ByIndex(subset), input, verify), $"{file} {input} verify {verify} [{string.Join(",", subset)}]");
            }
            _output.WriteLine($"{file}: {fields} fields, {count} subsets, {full.Count} batches");
            ArrowData.DisposeAll(full);
        }

        /// <summary>Every subset of 1 field; of 2 and 3 fields all when few, else a sample drawn with a fixed seed.</summary>
        private static IEnumerable<int[]> Subsets(int fields)
        {
            for (int i = 0; i < fields; i++)
                yield return new[] { i };
            foreach ((int size, int most) in new[] { (2, MaxPairs), (3, MaxTriples) })
            {
                List<int[]> all = Combinations(fields, size).Take(most + 1).ToList();
                if (all.Count <= most)
                {
                    foreach (int[] subset in all)
                        yield return subset;
                    continue;
                }
                var random = new Random(fields * 31 + size);
                var seen = new HashSet<string>();
                while (seen.Count < most)
                {
                    int[] subset = Enumerable.Range(0, fields).OrderBy(_ => random.Next()).Take(size).OrderBy(i => i).ToArray();
                    if (seen.Add(string.Join(",", subset)))
                        yield return subset;
                }
            }
        }

        private static IEnumerable<int[]> Combinations(int n, int k, int start = 0)
        {
            if (k == 0)
            {
                yield return System.Array.Empty<int>();
                yield break;
            }
            for (int i = start; i <= n - k; i++)
            {
                foreach (int[] rest in Combinations(n, k - 1, i + 1))
                    yield return new[] { i }.Concat(rest).ToArray();
            }
        }

        /// <summary>The batches through the wrapper with <paramref name="projection"/>, read by Arrow's stream reader with the codec factory for what passes through (ZSTD).</summary>
        private List<RecordBatch> Read(byte[] bytes, IpcProjection? projection, Input input, bool verifyOffsets = false)
        {
            var options = new Lz4FastOptions { Projection = projection, MaxDegreeOfParallelism = 2, VerifyOffsets = verifyOffsets };
            IpcDecompressingStream stream;
            switch (input)
            {
                case Input.Memory:
                    stream = new IpcDecompressingStream(bytes.AsMemory(), options);
                    break;
                case Input.PlainStream:
                    stream = new IpcDecompressingStream(new TrickleStream(bytes, bytes.Length, 1 << 16), options);
                    break;
                default:
                    string path = Path.Combine(_directory, Guid.NewGuid().ToString("N") + ".arrows");
                    File.WriteAllBytes(path, bytes);
                    stream = new IpcDecompressingStream(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1), options);
                    break;
            }
            return ArrowData.ReadAll(new ArrowStreamReader(stream, SlabMemoryAllocator.Shared, Factory(), leaveOpen: false));
        }

        private static byte[] Drain(byte[] bytes, IpcProjection? projection)
        {
            using var stream = new IpcDecompressingStream(bytes.AsMemory(), new Lz4FastOptions { Projection = projection });
            using var output = new MemoryStream();
            stream.CopyTo(output);
            return output.ToArray();
        }

        /// <summary>The selected columns of the codec path's batches, in schema order, must equal the projected batches: schema, values, validity, offsets, dictionaries.</summary>
        private static void AssertProjected(List<RecordBatch> full, int[] subset, List<RecordBatch> projected, string context)
        {
            try
            {
                Assert.Equal(full.Count, projected.Count);
                for (int b = 0; b < full.Count; b++)
                {
                    Assert.Equal(subset.Select(i => full[b].Schema.GetFieldByIndex(i).Name), projected[b].Schema.FieldsList.Select(f => f.Name));
                    Assert.Equal(subset.Select(i => full[b].Schema.GetFieldByIndex(i).DataType.TypeId), projected[b].Schema.FieldsList.Select(f => f.DataType.TypeId));
                }
                List<RecordBatch> expected = full.Select(b => new RecordBatch(new Schema(subset.Select(i => b.Schema.GetFieldByIndex(i)), null), subset.Select(i => b.Column(i)), b.Length)).ToList();
                ArrowData.AssertSame(expected, projected, allowLongerBuffers: false, context);
            }
            finally
            {
                ArrowData.DisposeAll(projected);
            }
        }

        /// <summary>The buffers each top-level field has in a batch (flat fields only: the counting tests read such streams).</summary>
        private static int[] BufferCounts(Schema schema) => schema.FieldsList.Select(f => f.DataType switch
        {
            StringType or BinaryType => 3,
            DictionaryType => 2,
            NestedType => throw new NotSupportedException($"field {f.Name} is nested"),
            _ => 2,
        }).ToArray();

        private static Schema SchemaOf(byte[] bytes)
        {
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(bytes.AsMemory()), SlabMemoryAllocator.Shared, Factory(), leaveOpen: false);
            return reader.Schema;
        }

        private static ICompressionCodecFactory Factory() =>
#if WITHOUT_OFFICIAL_CODEC
            new Lz4FastCodecFactory();
#else
            new Lz4FastCodecFactory(new OfficialFactory());
#endif
    }
}
