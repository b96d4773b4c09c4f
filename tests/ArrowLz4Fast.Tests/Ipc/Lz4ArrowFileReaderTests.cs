using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
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
    /// Random access to an IPC file (<see cref="Lz4ArrowFileReader"/>): batch <i>i</i>, with every field and with 1- and
    /// 2-field projections, equals what <see cref="ArrowFileReader"/> with the official codec reads as batch <i>i</i>, from
    /// memory, a path and a seekable stream, in any order; only the batch's metadata and selected buffers are read; a
    /// corrupt footer or block is an <see cref="InvalidDataException"/> at its offset in the file.
    /// </summary>
    public sealed partial class Lz4ArrowFileReaderTests : IDisposable
    {
        private readonly ITestOutputHelper _output;
        private readonly string _directory = Path.Combine(Path.GetTempPath(), "ipc-file-reader-" + Guid.NewGuid().ToString("N"));

        public Lz4ArrowFileReaderTests(ITestOutputHelper output)
        {
            _output = output;
            Directory.CreateDirectory(_directory);
        }

        public enum Input
        {
            Memory,
            Path,
            SeekableStream,
        }

        public void Dispose() => Directory.Delete(_directory, recursive: true);

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/java/nested_dict.arrows")]
        [InlineData("ipc/rust/strings.arrows")]
        [InlineData("ipc/pyarrow/wide.arrows")]
        [InlineData("ipc/pyarrow/empty.arrows")]
        [InlineData("ipc/rust/tiny_batches.arrows")]
        public void Every_batch_equals_ArrowFileReaders_batch_with_every_field_and_with_projections(string stream)
        {
            byte[] file = FileOf(Corpus.Committed(stream));
            AssertEveryBatch(file, stream);
        }

        // A file pyarrow wrote (Feather V2, LZ4), not one written here from a stream.
        [SharedCorpusTheory]
        [InlineData("ipc/pyarrow/numeric.arrow")]
        public void Every_batch_of_pyarrows_own_file_equals_ArrowFileReaders(string file) =>
            AssertEveryBatch(File.ReadAllBytes(Corpus.Shared(file)), "shared " + file);

        [Fact]
        public async Task Batches_read_asynchronously_equal_ArrowFileReaders()
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/nested_dict.arrows"));
            string path = Write(file);
            using var expected = new ArrowFileReader(new MemoryStream(file), Factory());
            int fields = expected.Schema.FieldsList.Count;
            for (int field = 0; field < fields; field++)
            {
                using var reader = new Lz4ArrowFileReader(path, new Lz4FastOptions { Projection = IpcProjection.ByIndex(field), MaxDegreeOfParallelism = 2 }, null);
                foreach (int i in Order(reader.RecordBatchCount))
                {
                    using RecordBatch want = Expected(file, i);
                    using RecordBatch got = await reader.ReadRecordBatchAsync(i);
                    AssertProjected(want, new[] { field }, got, $"async field {field} batch {i}");
                }
            }
        }

        /// <summary>From a seekable stream that is not a file (a seek and a read at each position), synchronously and asynchronously.</summary>
        [Theory]
        [InlineData("ipc/pyarrow/wide.arrows", false)]
        [InlineData("ipc/pyarrow/wide.arrows", true)]
        [InlineData("ipc/rust/wide.arrows", false)]
        [InlineData("ipc/pyarrow/strings.arrows", false)]
        [InlineData("ipc/pyarrow/strings.arrows", true)]
        public async Task Only_the_batchs_metadata_and_selected_buffers_are_read(string stream, bool asynchronous)
        {
            byte[] file = FileOf(Corpus.Committed(stream));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            using var schemaReader = new ArrowFileReader(new MemoryStream(file), Factory());
            int[] fields = schemaReader.Schema.FieldsList.Count > 2 ? new[] { 0, schemaReader.Schema.FieldsList.Count - 1 } : new[] { schemaReader.Schema.FieldsList.Count - 1 };
            int[] buffersOf = BufferCounts(schemaReader.Schema);
            int last = footer.RecordBatches.Length - 1;
            IpcFileBlock block = footer.RecordBatches[last];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            long selected = fields.Sum(f => Enumerable.Range(buffersOf.Take(f).Sum(), buffersOf[f]).Sum(b => buffers[b].Length));
            // Opening reads the header's magic, the trailer and the footer; the batch, its metadata and selected buffers.
            long metadata = 6 + 10 + footer.Length + block.MetadataLength;

            long projected = await CountRead(file, IpcProjection.ByIndex(fields), last, asynchronous);
            long whole = await CountRead(file, null, last, asynchronous);
            _output.WriteLine($"{stream}: batch {last} of {footer.RecordBatches.Length}: read {projected} bytes with fields [{string.Join(",", fields)}], {whole} without a projection; selected {selected}, metadata {metadata}, file {file.Length}");
            Assert.True(projected <= 1.2 * (selected + metadata), $"read {projected} bytes, more than 1.2 x ({selected} selected + {metadata} metadata)");
            // The bound tells the two apart: the whole batch is more.
            Assert.True(whole > 1.2 * (selected + metadata), $"the whole batch read {whole} bytes, within the bound");
        }

        [Fact]
        public void A_bad_index_is_an_argument_error_and_a_disposed_reader_refuses()
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            var reader = new Lz4ArrowFileReader(file);
            Assert.Throws<ArgumentOutOfRangeException>(() => reader.ReadRecordBatch(-1));
            Assert.Throws<ArgumentOutOfRangeException>(() => reader.ReadRecordBatch(reader.RecordBatchCount));
            reader.Dispose();
            Assert.Throws<ObjectDisposedException>(() => reader.ReadRecordBatch(0));
        }

        [Fact]
        public void A_stream_that_cannot_seek_is_refused_and_a_field_the_schema_lacks_is_invalid_data()
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            Assert.Throws<ArgumentException>(() => new Lz4ArrowFileReader(new TrickleStream(file, file.Length, 1 << 16)));
            var e = Assert.Throws<InvalidDataException>(() => new Lz4ArrowFileReader(file, new Lz4FastOptions { Projection = IpcProjection.ByName("no such field") }, null));
            Assert.Contains("'no such field'", e.Message, StringComparison.Ordinal);
        }

        /// <summary>Each corruption of the footer or of what a block says: an InvalidDataException whose inner exception has an offset inside the file.</summary>
        [Theory]
        [InlineData("truncated by one byte")]
        [InlineData("truncated in the middle")]
        [InlineData("no leading magic")]
        [InlineData("no trailing magic")]
        [InlineData("footer length zero")]
        [InlineData("footer length past the start")]
        [InlineData("footer length negative")]
        [InlineData("block offset past the end")]
        [InlineData("block offset into the header")]
        [InlineData("blocks overlap")]
        [InlineData("block body runs into the footer")]
        [InlineData("metaDataLength lies")]
        [InlineData("bodyLength lies")]
        [InlineData("batch block points at a dictionary")]
        [InlineData("dictionary block points at a batch")]
        [InlineData("batch metadata flipped")]
        [InlineData("footer vector count huge")]
        public void A_corrupt_footer_or_block_is_invalid_data_at_an_offset_in_the_file(string corruption)
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/nested_dict.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            Assert.True(footer.RecordBatches.Length >= 2 && footer.Dictionaries.Length >= 1);
            byte[] bad = Corrupt(file, footer, corruption);
            var e = Assert.Throws<InvalidDataException>(() =>
            {
                using var reader = new Lz4ArrowFileReader(bad, new Lz4FastOptions { MaxDegreeOfParallelism = 2 }, null);
                for (int i = reader.RecordBatchCount - 1; i >= 0; i--)
                    reader.ReadRecordBatch(i).Dispose();
            });
            var frame = Assert.IsType<Lz4FrameException>(e.InnerException);
            _output.WriteLine($"{corruption}: {e.Message}");
            Assert.InRange(frame.Offset, 0, bad.Length);
            Assert.StartsWith($"Invalid Arrow IPC data at byte offset {frame.Offset} of the IPC file: ", e.Message, StringComparison.Ordinal);
            Assert.Equal(e.Message, frame.Message);
        }

        // fuzz --ipc-file --seed 7 --index 29788: a batch whose buffer vector is shorter than its schema needs, in a file
        // whose bodies are uncompressed (nothing to decode), made Arrow's reader throw NullReferenceException; the stream
        // path now refuses it at its metadata, whatever the body's compression.
        [Fact]
        public void A_batch_listing_fewer_buffers_than_its_schema_needs_is_invalid_data_at_its_metadata()
        {
            byte[] file = FileOf(Corpus.Committed("ipc/rust/empty.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock block = footer.RecordBatches[1];
            // The mutant's one bit, in the second batch's metadata (the file is written the same way every time).
            Assert.Equal(0x0C, file[468]);
            Assert.InRange(468, block.Offset + 8, block.Body - 1);
            file[468] = 0x08;

            using (var reader = new Lz4ArrowFileReader(file))
            {
                reader.ReadRecordBatch(0).Dispose();
                var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1));
                Assert.Equal(block.Offset + 8, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                Assert.Contains("the record batch lists 0 buffer(s) but its schema needs 5", e.Message, StringComparison.Ordinal);
                Assert.Contains($"at byte offset {block.Offset + 8} of the IPC file: ", e.Message, StringComparison.Ordinal);
            }

            // The same file read in order as the stream it embeds.
            using var stream = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(file)));
            stream.ReadNextRecordBatch()!.Dispose();
            var inOrder = Assert.Throws<InvalidDataException>(() => stream.ReadNextRecordBatch());
            Assert.Equal(block.Offset + 8, Assert.IsType<Lz4FrameException>(inOrder.InnerException).Offset);
            Assert.Contains("the record batch lists 0 buffer(s) but its schema needs 5", inOrder.Message, StringComparison.Ordinal);
            Assert.Contains($"at byte offset {block.Offset + 8} of the input stream: ", inOrder.Message, StringComparison.Ordinal);
        }

        // A defect the engine finds in a selected buffer: its offset in the file, the batch of the file, and the buffer
        // and field the stream path names (from its error's data), numbered as the projected batch has them.
        [Fact]
        public void A_corrupt_frame_in_batch_i_names_the_batch_buffer_and_field_at_its_offset_in_the_file()
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock block = footer.RecordBatches[1];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            long at = block.Body + buffers[5].Offset + 8;
            file[at] ^= 0xFF;    // field 1's data buffer: its LZ4 frame's magic number
            string name;
            using (var all = new Lz4ArrowFileReader(file))
                name = all.Schema.FieldsList[1].Name;

            using var reader = new Lz4ArrowFileReader(file, new Lz4FastOptions { Projection = IpcProjection.ByIndex(1) }, null);
            reader.ReadRecordBatch(0).Dispose();
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1));
            Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            Assert.StartsWith($"Invalid Arrow IPC data at byte offset {at} of the IPC file: ", e.Message, StringComparison.Ordinal);
            Assert.Contains("record batch 1 of the IPC file", e.Message, StringComparison.Ordinal);
            Assert.Contains($": body buffer 2 (data) of field '{name}'", e.Message, StringComparison.Ordinal);

            // The message names places in the file only: read first by a new reader, whose stream path holds other
            // messages before it, the batch fails with the same words.
            using var fresh = new Lz4ArrowFileReader(file, new Lz4FastOptions { Projection = IpcProjection.ByIndex(1) }, null);
            Assert.Equal(e.Message, Assert.Throws<InvalidDataException>(() => fresh.ReadRecordBatch(1)).Message);
            _output.WriteLine(e.Message);
        }

        // A frame that names a dictionary is valid LZ4 the package does not read: a NotSupportedException, whose offset
        // must be the file's, as the stream path reading the same file in order gives it, whatever the reader served
        // before (its own stream path's offsets depend on that).
        [Fact]
        public void A_frame_naming_a_dictionary_in_batch_i_is_not_supported_at_its_offset_in_the_file()
        {
            // Frames with their content size, which leaves room for a dictionary ID in the same length.
            List<RecordBatch> batches = ArrowData.ReadAll(Corpus.Committed("ipc/pyarrow/strings.arrows"), Factory());
            byte[] file = IpcWriter.Write(batches, new Lz4FastCodecFactory(new Lz4FastOptions { ContentSize = true }), fileFormat: true);
            ArrowData.DisposeAll(batches);
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock block = footer.RecordBatches[1];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            int frame = (int)(block.Body + buffers[5].Offset + 8);
            NameADictionary(file.AsSpan(frame, (int)buffers[5].Length - 8));
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(1) };

            long inOrder;
            using (var stream = new ArrowStreamReader(new IpcDecompressingStream(file, options), SlabMemoryAllocator.Shared))
            {
                stream.ReadNextRecordBatch().Dispose();
                inOrder = OffsetIn(Assert.Throws<NotSupportedException>(() => stream.ReadNextRecordBatch()).Message);
            }
            Assert.InRange(inOrder, frame, frame + 10);
            using var fresh = new Lz4ArrowFileReader(file, options, null);
            Assert.Equal(inOrder, OffsetIn(Assert.Throws<NotSupportedException>(() => fresh.ReadRecordBatch(1)).Message));
            using var after = new Lz4ArrowFileReader(file, options, null);
            after.ReadRecordBatch(0).Dispose();
            var e = Assert.Throws<NotSupportedException>(() => after.ReadRecordBatch(1));
            _output.WriteLine(e.Message);
            Assert.Equal(inOrder, OffsetIn(e.Message));
            Assert.Contains($"at byte offset {inOrder} of the IPC file", e.Message, StringComparison.Ordinal);
            Assert.Equal(inOrder, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        /// <summary>
        /// Rewrites the LZ4 frame <paramref name="frame"/> (the whole buffer) to name dictionary 0x12345678, in the same
        /// length and with the same blocks, which the decoder checks before it stops at the dictionary: the 4 bytes of
        /// the dictionary ID are taken from the content size (dropped) or from the content checksum (dropped), and a
        /// frame without a content checksum gains one in place of the content size's other 4 bytes.
        /// </summary>
        private static void NameADictionary(Span<byte> frame)
        {
            const byte ContentSize = 0x08, ContentChecksum = 0x04, DictionaryId = 0x01;
            byte flg = frame[4];
            byte[] blocks;
            byte newFlg;
            if ((flg & ContentSize) != 0 && (flg & ContentChecksum) == 0)
            {
                // Header 15 -> 11 bytes, and 4 bytes of content checksum after the end mark.
                blocks = frame.Slice(15).ToArray().Concat(new byte[4]).ToArray();
                newFlg = (byte)((flg & ~ContentSize) | ContentChecksum | DictionaryId);
            }
            else if ((flg & ContentSize) == 0 && (flg & ContentChecksum) != 0)
            {
                // Header 7 -> 11 bytes, and the content checksum dropped.
                blocks = frame.Slice(7, frame.Length - 11).ToArray();
                newFlg = (byte)((flg & ~ContentChecksum) | DictionaryId);
            }
            else
            {
                throw new InvalidOperationException($"a frame with FLG 0x{flg:X2}: no way to name a dictionary in the same length");
            }
            frame[4] = newFlg;
            BinaryPrimitives.WriteUInt32LittleEndian(frame.Slice(6), 0x12345678);
            frame[10] = Lz4FrameDescriptor.HeaderChecksumOf(frame.Slice(4, 6));
            blocks.CopyTo(frame.Slice(11));
            Assert.Equal(frame.Length, 11 + blocks.Length);
        }

        private static long OffsetIn(string message) =>
            long.Parse(System.Text.RegularExpressions.Regex.Match(message, "at byte offset ([0-9]+)").Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);

        // docs/projection.md, "Random access" (kept verbatim between the markers).
        [Fact]
        public void The_docs_snippet_reads_the_last_batch_of_a_file()
        {
            var table = new RecordBatch.Builder()
                .Append("id", false, c => c.Int64(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => (long)i))))
                .Append("name", false, c => c.String(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => $"n{i}"))))
                .Append("price", false, c => c.Double(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => i * 0.5))))
                .Build();
            string path = Path.Combine(_directory, "table.arrow");
            File.WriteAllBytes(path, IpcWriter.Write(new[] { table, table, table }, new Lz4FastCodecFactory(), fileFormat: true));
            long rows, columns;

            // SNIPPET
            var options = new Lz4FastOptions { Projection = IpcProjection.ByName("price", "id") };
            using var file = new Lz4ArrowFileReader(path, options, SlabMemoryAllocator.Shared);
            using (RecordBatch batch = file.ReadRecordBatch(file.RecordBatchCount - 1))
            {
                rows = batch.Length;
                columns = batch.ColumnCount; // 2: id, then price (schema order)
            }
            // SNIPPET

            Assert.Equal(3, file.RecordBatchCount);
            Assert.Equal(1000, rows);
            Assert.Equal(2, columns);
            Assert.Equal(new[] { "id", "price" }, file.Schema.FieldsList.Select(f => f.Name));
            table.Dispose();
        }

        private void AssertEveryBatch(byte[] file, string name)
        {
            using var expected = new ArrowFileReader(new MemoryStream(file), Factory());
            Schema schema = expected.Schema;
            int fields = schema.FieldsList.Count;
            var projections = new List<int[]?> { null };
            projections.AddRange(Enumerable.Range(0, Math.Min(fields, 6)).Select(f => new[] { f }));
            if (fields > 1)
                projections.AddRange(new[] { new[] { 0, fields - 1 }, new[] { fields / 2, fields - 1 } }.Where(s => s[0] != s[1]).Distinct(new SubsetComparer()));
            string path = Write(file);
            int count = 0;
            foreach (int[]? subset in projections)
            {
                var input = (Input)(count++ % 3);
                var options = new Lz4FastOptions { Projection = subset is null ? null : IpcProjection.ByIndex(subset), MaxDegreeOfParallelism = 2, VerifyOffsets = count % 2 == 0 };
                using Lz4ArrowFileReader reader = Open(file, path, input, options);
                Assert.Equal(expected.RecordBatchCountAsync().AsTask().GetAwaiter().GetResult(), reader.RecordBatchCount);
                int[] selected = subset ?? Enumerable.Range(0, fields).ToArray();
                Assert.Equal(selected.Select(i => schema.GetFieldByIndex(i).Name), reader.Schema.FieldsList.Select(f => f.Name));
                foreach (int i in Order(reader.RecordBatchCount))
                {
                    using RecordBatch want = Expected(file, i);
                    using RecordBatch got = reader.ReadRecordBatch(i);
                    AssertProjected(want, selected, got, $"{name} {input} [{(subset is null ? "all" : string.Join(",", subset))}] batch {i}");
                }
            }
        }

        /// <summary>
        /// Batch <paramref name="index"/> as ArrowFileReader with the codec reads it, from a reader of its own: batches of
        /// one ArrowFileReader share its dictionaries, which disposing one of them disposes.
        /// </summary>
        private static RecordBatch Expected(byte[] file, int index)
        {
            using var reader = new ArrowFileReader(new MemoryStream(file), Factory());
            return reader.ReadRecordBatchAsync(index).AsTask().GetAwaiter().GetResult();
        }

        /// <summary>Last, first, middle, then up to 20 more spread over the file (all of a small file), backwards.</summary>
        private static IEnumerable<int> Order(int count)
        {
            if (count == 0)
                return System.Array.Empty<int>();
            var order = new List<int> { count - 1, 0, count / 2 };
            int step = Math.Max(1, count / 20);
            for (int i = count - 1; i >= 0; i -= step)
                order.Add(i);
            return order;
        }

        private static void AssertProjected(RecordBatch full, int[] selected, RecordBatch projected, string context)
        {
            Assert.Equal(selected.Select(i => full.Schema.GetFieldByIndex(i).Name), projected.Schema.FieldsList.Select(f => f.Name));
            var expected = new RecordBatch(new Schema(selected.Select(i => full.Schema.GetFieldByIndex(i)), null), selected.Select(i => full.Column(i)), full.Length);
            ArrowData.AssertSame(new[] { expected }, new[] { projected }, allowLongerBuffers: false, context);
        }

        private static Lz4ArrowFileReader Open(byte[] file, string path, Input input, Lz4FastOptions options) => input switch
        {
            Input.Memory => new Lz4ArrowFileReader(file, options, SlabMemoryAllocator.Shared),
            Input.Path => new Lz4ArrowFileReader(path, options, null),
            _ => new Lz4ArrowFileReader(new MemoryStream(file, writable: false), options, null, leaveOpen: false),
        };

        private static async Task<long> CountRead(byte[] file, IpcProjection? projection, int index, bool asynchronous)
        {
            var counting = new CountingStream(file);
            using (var reader = new Lz4ArrowFileReader(counting, new Lz4FastOptions { Projection = projection, MaxDegreeOfParallelism = 2 }, null, leaveOpen: true))
                (asynchronous ? await reader.ReadRecordBatchAsync(index) : reader.ReadRecordBatch(index)).Dispose();
            return counting.BytesRead;
        }

        private string Write(byte[] file)
        {
            string path = Path.Combine(_directory, Guid.NewGuid().ToString("N") + ".arrow");
            File.WriteAllBytes(path, file);
            return path;
        }

        /// <summary>The corpus stream's batches written as an LZ4 IPC file by ArrowFileWriter with the official codec.</summary>
        private static byte[] FileOf(string stream)
        {
            List<RecordBatch> batches = ArrowData.ReadAll(stream, Factory());
            try
            {
#if WITHOUT_OFFICIAL_CODEC
                return IpcWriter.Write(batches, new Lz4FastCodecFactory(), fileFormat: true);
#else
                return IpcWriter.Write(batches, new OfficialFactory(), fileFormat: true);
#endif
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        private static byte[] Corrupt(byte[] file, IpcFileFooter footer, string corruption)
        {
            byte[] bad = (byte[])file.Clone();
            IpcFileBlock first = footer.RecordBatches[0], second = footer.RecordBatches[1], dictionary = footer.Dictionaries[0];
            int footerLength = file.Length - 10;
            void Int64(long at, long value) => BinaryPrimitives.WriteInt64LittleEndian(bad.AsSpan((int)at), value);
            void Int32(long at, int value) => BinaryPrimitives.WriteInt32LittleEndian(bad.AsSpan((int)at), value);
            switch (corruption)
            {
                case "truncated by one byte":
                    return bad.AsSpan(0, bad.Length - 1).ToArray();
                case "truncated in the middle":
                    return bad.AsSpan(0, bad.Length / 2).ToArray();
                case "no leading magic":
                    bad[0] = (byte)'X';
                    break;
                case "no trailing magic":
                    bad[bad.Length - 1] = (byte)'X';
                    break;
                case "footer length zero":
                    Int32(footerLength, 0);
                    break;
                case "footer length past the start":
                    Int32(footerLength, file.Length - 17);
                    break;
                case "footer length negative":
                    Int32(footerLength, -24);
                    break;
                case "block offset past the end":
                    Int64(second.FooterEntry, file.Length + 100);
                    break;
                case "block offset into the header":
                    Int64(second.FooterEntry, 4);
                    break;
                case "blocks overlap":
                    Int64(second.FooterEntry, first.Offset + 8);
                    break;
                case "block body runs into the footer":
                    Int64(second.FooterEntry + 16, footer.Offset - second.Body + 8);
                    break;
                case "metaDataLength lies":
                    Int32(first.FooterEntry + 8, first.MetadataLength - 8);
                    break;
                case "bodyLength lies":
                    Int64(first.FooterEntry + 16, first.BodyLength - 8);
                    break;
                case "batch block points at a dictionary":
                    Int64(first.FooterEntry, dictionary.Offset);
                    Int32(first.FooterEntry + 8, dictionary.MetadataLength);
                    Int64(first.FooterEntry + 16, dictionary.BodyLength);
                    Int64(dictionary.FooterEntry, first.Offset);
                    Int32(dictionary.FooterEntry + 8, first.MetadataLength);
                    Int64(dictionary.FooterEntry + 16, first.BodyLength);
                    break;
                case "dictionary block points at a batch":
                    Int64(dictionary.FooterEntry, first.Offset);
                    Int32(dictionary.FooterEntry + 8, first.MetadataLength);
                    Int64(dictionary.FooterEntry + 16, first.BodyLength);
                    Int64(first.FooterEntry, dictionary.Offset);
                    Int32(first.FooterEntry + 8, dictionary.MetadataLength);
                    Int64(first.FooterEntry + 16, dictionary.BodyLength);
                    break;
                case "batch metadata flipped":
                    // The RecordBatch's buffer count, well inside the metadata: the message no longer verifies.
                    for (int i = 8; i < first.MetadataLength; i += 7)
                        bad[first.Offset + i] ^= 0x5A;
                    break;
                case "footer vector count huge":
                    Int32(footer.RecordBatches[0].FooterEntry - 4, int.MaxValue);
                    break;
                default:
                    throw new ArgumentException(corruption);
            }
            return bad;
        }

        /// <summary>The buffers each top-level field has in a batch (flat fields only).</summary>
        private static int[] BufferCounts(Schema schema) => schema.FieldsList.Select(f => f.DataType switch
        {
            StringType or BinaryType => 3,
            NestedType => throw new NotSupportedException($"field {f.Name} is nested"),
            _ => 2,
        }).ToArray();

        private static ICompressionCodecFactory Factory() =>
#if WITHOUT_OFFICIAL_CODEC
            new Lz4FastCodecFactory();
#else
            new Lz4FastCodecFactory(new OfficialFactory());
#endif

        private sealed class SubsetComparer : IEqualityComparer<int[]>
        {
            public bool Equals(int[]? x, int[]? y) => x!.SequenceEqual(y!);

            public int GetHashCode(int[] obj) => obj.Sum();
        }
    }
}
