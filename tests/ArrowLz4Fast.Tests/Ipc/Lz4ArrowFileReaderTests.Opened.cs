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

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// One reader opened once and read many times: it keeps its stream path, schema and dictionaries, so a read costs a
    /// small constant of managed memory; batches read in any order, again and again, equal ArrowFileReader's, earlier
    /// ones staying right while later ones are read; a failed or cancelled read leaves the reader reading other batches right.
    /// </summary>
    public sealed partial class Lz4ArrowFileReaderTests
    {
        // Measured per read once warm: 0.7 KB (wide, 200 fields) and 0.9 KB (nested_dict) with the stream path kept open,
        // against 41 KB and 8 KB when each read made its own, verifying and building the schema and projection again.
        private const long AllocationPerRead = 4 * 1024;

        [Theory]
        [InlineData("ipc/pyarrow/wide.arrows", Input.Path, false)]
        [InlineData("ipc/pyarrow/wide.arrows", Input.Memory, false)]
        [InlineData("ipc/pyarrow/wide.arrows", Input.Memory, true)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", Input.Memory, false)]
        [InlineData("ipc/rust/nested_dict.arrows", Input.Path, false)]
        public async Task An_opened_reader_allocates_a_small_constant_per_read(string stream, Input input, bool asynchronous)
        {
            byte[] file = FileOf(Corpus.Committed(stream));
            int fields;
            using (var all = new Lz4ArrowFileReader(file))
                fields = all.Schema.FieldsList.Count;
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(0, fields - 1), MaxDegreeOfParallelism = 1 };
            using Lz4ArrowFileReader reader = Open(file, Write(file), input, options);
            int count = reader.RecordBatchCount;
            // Warm: the dictionaries, pooled arrays, the allocator's slabs, JIT.
            for (int i = 0; i < 2 * count; i++)
                (await Read(reader, count - 1 - (i % count), asynchronous)).Dispose();

            const int reads = 40;
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < reads; i++)
                (await Read(reader, i % count, asynchronous)).Dispose();
            long perRead = (GC.GetAllocatedBytesForCurrentThread() - before) / reads;

            _output.WriteLine($"{stream} {input} async {asynchronous}: {fields} fields, 2 selected, {count} batch(es): {perRead:N0} bytes allocated per read");
            Assert.True(perRead <= AllocationPerRead, $"{perRead:N0} bytes allocated per read, more than {AllocationPerRead:N0}");
        }

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/java/nested_dict.arrows")]
        [InlineData("ipc/rust/nested_dict.arrows")]
        [InlineData("ipc/pyarrow/nested_dict_minsavings.arrows")]
        [InlineData("ipc/rust/tiny_batches.arrows")]
        [InlineData("delta dictionaries")]
        public async Task Batches_read_back_to_front_at_random_and_again_by_one_reader_equal_ArrowFileReaders(string stream)
        {
            byte[] file = stream == "delta dictionaries" ? DeltaDictionaryFile.Build(new Lz4FastCodecFactory()) : FileOf(Corpus.Committed(stream));
            string path = Write(file);
            int count, fields;
            using (var all = new Lz4ArrowFileReader(file))
            {
                count = all.RecordBatchCount;
                fields = all.Schema.FieldsList.Count;
            }
            List<RecordBatch> expected = Enumerable.Range(0, count).Select(i => Expected(file, i)).ToList();
            var projections = new List<int[]?> { null };
            projections.AddRange(Enumerable.Range(0, Math.Min(fields, 4)).Select(f => new[] { f }));
            try
            {
                for (int p = 0; p < projections.Count; p++)
                {
                    int[] selected = projections[p] ?? Enumerable.Range(0, fields).ToArray();
                    var input = (Input)(p % 3);
                    var options = new Lz4FastOptions { Projection = projections[p] is null ? null : IpcProjection.ByIndex(selected), MaxDegreeOfParallelism = 2 };
                    using Lz4ArrowFileReader reader = Open(file, path, input, options);
                    var random = new Random(46 + p);
                    // Back to front, each batch twice in a row, then at random with repeats.
                    IEnumerable<int> order = Enumerable.Range(0, count).Reverse().SelectMany(i => new[] { i, i })
                        .Concat(Enumerable.Range(0, 3 * count).Select(_ => random.Next(count)));
                    // Some batches are kept while later ones are read, and after the reader is disposed: their dictionaries must stay theirs.
                    var kept = new List<(int Index, RecordBatch Batch)>();
                    int n = 0;
                    foreach (int i in order)
                    {
                        string context = $"{stream} {input} [{string.Join(",", selected)}] read {n} batch {i}";
                        RecordBatch got = await Read(reader, i, asynchronous: random.Next(2) == 0);
                        AssertProjected(expected[i], selected, got, context);
                        if (n++ % 5 == 0)
                            kept.Add((i, got));
                        else
                            got.Dispose();
                    }
                    // Batches outlive their reader, as ArrowFileReader's do.
                    reader.Dispose();
                    foreach ((int index, RecordBatch batch) in kept)
                    {
                        AssertProjected(expected[index], selected, batch, $"{stream} {input} [{string.Join(",", selected)}] batch {index} kept");
                        batch.Dispose();
                    }
                }
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        /// <summary>
        /// A read that fails inside the stream path (a corrupt frame in batch 1) drops it: the batches read after it,
        /// other ones and the failed one again, give their batch or the same error, synchronously and asynchronously.
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows", null)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", 2)]
        [InlineData("ipc/pyarrow/strings.arrows", 1)]
        public async Task A_failed_read_leaves_the_reader_reading_every_other_batch_right(string stream, int? field)
        {
            byte[] file = FileOf(Corpus.Committed(stream));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock block = footer.RecordBatches[1];
            long at = CompressedBufferOf(file, block, field);
            List<RecordBatch> expected = Enumerable.Range(0, footer.RecordBatches.Length).Select(i => Expected(file, i)).ToList();
            file[at] ^= 0xFF;    // the buffer's LZ4 frame magic
            int[] selected = field is null ? Enumerable.Range(0, expected[0].ColumnCount).ToArray() : new[] { field.Value };
            try
            {
                using var reader = new Lz4ArrowFileReader(file, new Lz4FastOptions { Projection = field is null ? null : IpcProjection.ByIndex(field.Value), MaxDegreeOfParallelism = 2 }, SlabMemoryAllocator.Shared);
                using (RecordBatch first = reader.ReadRecordBatch(0))
                    AssertProjected(expected[0], selected, first, "batch 0 before the failure");
                foreach (bool asynchronous in new[] { false, true, false })
                {
                    var e = await Assert.ThrowsAsync<InvalidDataException>(async () => (await Read(reader, 1, asynchronous)).Dispose());
                    Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                    Assert.Contains("record batch 1 of the IPC file", e.Message, StringComparison.Ordinal);
                    foreach (int i in Enumerable.Range(0, expected.Count).Where(i => i != 1).Reverse())
                    {
                        using RecordBatch got = await Read(reader, i, asynchronous);
                        AssertProjected(expected[i], selected, got, $"batch {i} after the failure (async {asynchronous})");
                    }
                }
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        /// <summary>A read cancelled after its batch was given to the stream path leaves the reader reading the next batches right.</summary>
        [Theory]
        [InlineData(Input.Memory)]
        [InlineData(Input.SeekableStream)]
        public async Task A_cancelled_read_leaves_the_reader_reading_right(Input input)
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/nested_dict.arrows"));
            List<RecordBatch> expected = Enumerable.Range(0, 3).Select(i => Expected(file, i)).ToList();
            int[] selected = Enumerable.Range(0, expected[0].ColumnCount).ToArray();
            try
            {
                using Lz4ArrowFileReader reader = Open(file, Write(file), input, new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
                using (RecordBatch first = reader.ReadRecordBatch(0))
                    AssertProjected(expected[0], selected, first, "batch 0 before the cancelled read");
                using var cancelled = new System.Threading.CancellationTokenSource();
                cancelled.Cancel();
                await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => (await reader.ReadRecordBatchAsync(1, cancelled.Token)).Dispose());
                foreach (int i in new[] { 2, 1, 0 })
                {
                    using RecordBatch got = reader.ReadRecordBatch(i);
                    AssertProjected(expected[i], selected, got, $"batch {i} after the cancelled read");
                }
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        /// <summary>
        /// The reader verifies each batch's metadata whole and the stream path it feeds does not walk it again: a defect
        /// anywhere in it, in an unselected field's buffer too, is still refused, on a read of an open session (batch 0
        /// read first), naming the batch and the defect's offset in the file, and the session then reads on.
        /// </summary>
        [Theory]
        [InlineData("buffer past the body", false, false)]
        [InlineData("buffer past the body", true, false)]
        [InlineData("buffer past the body", false, true)]
        [InlineData("buffers out of order", false, false)]
        [InlineData("bad vtable offset", false, false)]
        [InlineData("bad vtable offset", true, false)]
        [InlineData("bad vtable offset", false, true)]
        public async Task A_corrupt_batch_message_read_in_an_open_session_names_the_batch_and_its_offset_in_the_file(string corruption, bool asynchronous, bool legacy)
        {
            byte[] file = WideTwice(legacy);
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            Assert.Equal(2, footer.RecordBatches.Length);
            IpcFileBlock block = footer.RecordBatches[1];
            long flat = block.Offset + (legacy ? 4 : 8);
            IpcMessage message = IpcMessageParser.Parse(new FlatReader(file, (int)flat, (int)(block.Offset + block.MetadataLength - flat), flat), buffers: true);
            Assert.True(message.BufferCount > 4);
            // The last buffer: the last field's, which the projection leaves out.
            long last = flat + message.Buffers + ((message.BufferCount - 1) * IpcMessageParser.BufferStructSize);
            long at;
            string what;
            switch (corruption)
            {
                case "buffer past the body":
                    at = last;
                    BinaryPrimitives.WriteInt64LittleEndian(file.AsSpan((int)at), block.BodyLength + 8);
                    what = "lies outside the";
                    break;
                case "buffers out of order":
                    at = last;
                    BinaryPrimitives.WriteInt64LittleEndian(file.AsSpan((int)at), 0);
                    BinaryPrimitives.WriteInt64LittleEndian(file.AsSpan((int)at + 8), 16);
                    what = "overlaps or precedes the buffer before it";
                    break;
                default:
                    // The RecordBatch table's offset to its vtable, pointed far outside the metadata.
                    at = flat + message.Batch.Position;
                    BinaryPrimitives.WriteInt32LittleEndian(file.AsSpan((int)at), -0x10000000);
                    what = "vtable";
                    break;
            }
            int fields;
            using (var all = new Lz4ArrowFileReader(file))
                fields = all.Schema.FieldsList.Count;
            using RecordBatch expected = Expected(file, 0);

            using var reader = new Lz4ArrowFileReader(file, new Lz4FastOptions { Projection = IpcProjection.ByIndex(0, 1), MaxDegreeOfParallelism = 2 }, null);
            Assert.True(fields > 2);
            using (RecordBatch first = await Read(reader, 0, asynchronous))
                AssertProjected(expected, new[] { 0, 1 }, first, "batch 0, before");
            for (int attempt = 0; attempt < 2; attempt++)
            {
                var e = await Assert.ThrowsAsync<InvalidDataException>(async () => (await Read(reader, 1, asynchronous)).Dispose());
                _output.WriteLine($"{corruption}: {e.Message}");
                Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                Assert.StartsWith($"Invalid Arrow IPC data at byte offset {at} of the IPC file: ", e.Message, StringComparison.Ordinal);
                // The stream path's checks name the batch as the reader reads it, the reader's own walk as the footer lists it.
                Assert.Matches("record batch (block )?1 of the (IPC file|footer)", e.Message);
                Assert.Contains(what, e.Message, StringComparison.Ordinal);
                using RecordBatch again = await Read(reader, 0, asynchronous);
                AssertProjected(expected, new[] { 0, 1 }, again, $"batch 0 after failure {attempt}");
            }
        }

        /// <summary>
        /// The stream path takes a message as verified only where a piece given as verified lies, exactly: a corrupt
        /// batch message in a plain memory piece after a verified one is walked, and refused, as any other.
        /// </summary>
        [Fact]
        public void A_verified_piece_vouches_only_for_its_own_bytes()
        {
            byte[] file = WideTwice(legacy: false);
            IpcFileSource source = IpcFileSource.Over(file);
            IpcFileFooter footer = IpcFileFooter.Read(source);
            IpcFileBlock first = footer.RecordBatches[0], second = footer.RecordBatches[1];
            byte[] good = file.AsSpan((int)first.Offset, first.MetadataLength).ToArray();
            IpcMessage message = IpcFileFooter.CheckMessage(good, good.Length, first, IpcMessageParser.HeaderRecordBatch, out FlatReader walked);
            byte[] bad = file.AsSpan((int)second.Offset, second.MetadataLength).ToArray();
            // The second batch's root offset points far outside its metadata: only the verifier's walk follows it before
            // Arrow's reader does (the stream path goes by what the walk found).
            BinaryPrimitives.WriteInt32LittleEndian(bad.AsSpan(8), 0x10000000);
            Assert.Equal(good.Length, bad.Length);
            var pieces = new[]
            {
                IpcSpliceStream.Piece.Memory(footer.SchemaMessage, footer.Offset, IpcFileFooter.SchemaSkew, footer.Length),
                IpcSpliceStream.Piece.Verified(good, first.Offset, walked, message),
                IpcSpliceStream.Piece.File(first.Body, first.BodyLength),
                IpcSpliceStream.Piece.Memory(bad, second.Offset, 0, bad.Length),
                IpcSpliceStream.Piece.File(second.Body, second.BodyLength),
            };
            var stream = new IpcDecompressingStream(new IpcSpliceStream(source, pieces, pieces.Length), new Lz4FastOptions { MaxDegreeOfParallelism = 1 }, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: false);
            using var reader = new ArrowStreamReader(stream, SlabMemoryAllocator.Shared, Factory(), leaveOpen: false);
            using (RecordBatch verified = reader.ReadNextRecordBatch()!)
            using (RecordBatch expected = Expected(file, 0))
                ArrowData.AssertSame(new[] { expected }, new[] { verified }, allowLongerBuffers: false, "the verified batch");
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadNextRecordBatch());
            _output.WriteLine(e.Message);
            Assert.Contains("Message: offset points to 268435456, past the", e.Message, StringComparison.Ordinal);
            // The offset is the spliced stream's: the second message's metadata follows the first batch.
            Assert.Equal(pieces[3].Start + 8, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        /// <summary>
        /// In an open session a batch costs one read of its metadata, and one of each run of selected buffers lying
        /// next to each other (a field's validity, offsets and data, with the padding between), not one per buffer.
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/wide.arrows", false)]
        [InlineData("ipc/pyarrow/wide.arrows", true)]
        [InlineData("ipc/pyarrow/strings.arrows", false)]
        public async Task A_read_of_an_open_session_reads_the_metadata_and_each_selected_fields_buffers_at_once(string stream, bool asynchronous)
        {
            byte[] file = stream.EndsWith("wide.arrows", StringComparison.Ordinal) ? WideTwice(legacy: false) : FileOf(Corpus.Committed(stream));
            int fields;
            using (var all = new Lz4ArrowFileReader(file))
                fields = all.Schema.FieldsList.Count;
            int[] selected = fields > 2 ? new[] { 0, fields - 1 } : new[] { fields - 1 };
            var counting = new CountingStream(file);
            using var reader = new Lz4ArrowFileReader(counting, new Lz4FastOptions { Projection = IpcProjection.ByIndex(selected), MaxDegreeOfParallelism = 1 }, null, leaveOpen: true);
            int index = reader.RecordBatchCount - 1;
            (await Read(reader, 0, asynchronous)).Dispose();
            int before = counting.Reads;
            using (RecordBatch batch = await Read(reader, index, asynchronous))
                Assert.True(batch.Length > 0);
            int reads = counting.Reads - before;
            _output.WriteLine($"{stream} async {asynchronous}: batch {index} with fields [{string.Join(",", selected)}]: {reads} read(s)");
            // Each selected field's buffers lie together in the file: one read each, after the metadata's.
            Assert.True(reads <= 1 + selected.Length, $"{reads} reads for the metadata and {selected.Length} field(s)");
        }

        /// <summary>The wide corpus stream's one batch (200 fields) twice, as an LZ4 IPC file (with 4-byte length prefixes when <paramref name="legacy"/>).</summary>
        private static byte[] WideTwice(bool legacy)
        {
            List<RecordBatch> batches = ArrowData.ReadAll(Corpus.Committed("ipc/pyarrow/wide.arrows"), Factory());
            try
            {
                return IpcWriter.Write(new[] { batches[0], batches[0] }, new Lz4FastCodecFactory(), fileFormat: true, legacy: legacy);
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        private static async Task<RecordBatch> Read(Lz4ArrowFileReader reader, int index, bool asynchronous) =>
            asynchronous ? await reader.ReadRecordBatchAsync(index) : reader.ReadRecordBatch(index);

        /// <summary>
        /// Where the LZ4 frame magic of the largest compressed buffer of <paramref name="field"/> (of any field when null)
        /// in the batch at <paramref name="block"/> lies in the file.
        /// </summary>
        private static long CompressedBufferOf(byte[] file, IpcFileBlock block, int? field)
        {
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            IEnumerable<int> candidates = Enumerable.Range(0, buffers.Length);
            if (field is not null)
            {
                // The field's buffers: those of the fields before it, then its own (its children's included).
                using var all = new Lz4ArrowFileReader(file);
                int[] counts = all.Schema.FieldsList.Select(f => BuffersOf(f.DataType)).ToArray();
                candidates = Enumerable.Range(counts.Take(field.Value).Sum(), counts[field.Value]);
            }
            int best = candidates
                .Where(b => buffers[b].Length > 16 && BinaryPrimitives.ReadInt64LittleEndian(file.AsSpan((int)(block.Body + buffers[b].Offset))) >= 0)
                .OrderByDescending(b => buffers[b].Length).First();
            long magic = block.Body + buffers[best].Offset + 8;
            Assert.Equal(0x184D2204u, BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan((int)magic)));
            return magic;
        }

        /// <summary>The buffers a field of <paramref name="type"/> has in a record batch, its children's included.</summary>
        private static int BuffersOf(IArrowType type) => type switch
        {
            StructType s => 1 + s.Fields.Sum(f => BuffersOf(f.DataType)),
            ListType l => 2 + BuffersOf(l.ValueDataType),
            StringType or BinaryType => 3,
            NestedType => throw new NotSupportedException(type.Name),
            _ => 2,
        };
    }
}
