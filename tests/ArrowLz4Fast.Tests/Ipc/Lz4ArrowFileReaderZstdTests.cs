#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Random access to a ZSTD-compressed IPC file (<see cref="Lz4ArrowFileReader"/> with a codec factory): batch
    /// <i>i</i>, with every field and with projections, equals what <see cref="ArrowFileReader"/> with Apache.Arrow.Compression
    /// reads, from memory, a path and a seekable stream, synchronously and asynchronously; without a factory a ZSTD body
    /// is a <see cref="NotSupportedException"/> naming the parameter to give; a corrupt ZSTD body is invalid data at its batch.
    /// </summary>
    public sealed class Lz4ArrowFileReaderZstdTests : IDisposable
    {
        private readonly string _directory = Path.Combine(Path.GetTempPath(), "ipc-file-zstd-" + Guid.NewGuid().ToString("N"));

        public Lz4ArrowFileReaderZstdTests() => Directory.CreateDirectory(_directory);

        public void Dispose() => Directory.Delete(_directory, recursive: true);

        [Theory]
        [InlineData("ipc/pyarrow/numeric_zstd.arrows")]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/rust/strings.arrows")]
        public async Task Every_batch_of_a_ZSTD_file_equals_ArrowFileReaders_with_every_field_and_with_projections(string stream)
        {
            byte[] file = ZstdFileOf(Corpus.Committed(stream));
            string path = Path.Combine(_directory, Guid.NewGuid().ToString("N") + ".arrow");
            File.WriteAllBytes(path, file);
            Schema schema;
            using (var official = new ArrowFileReader(new MemoryStream(file), new OfficialFactory()))
                schema = official.Schema;
            int fields = schema.FieldsList.Count;
            var projections = new List<int[]?> { null };
            projections.AddRange(Enumerable.Range(0, Math.Min(fields, 4)).Select(f => new[] { f }));
            if (fields > 2)
                projections.Add(new[] { 0, fields - 1 });
            int count = 0;
            foreach (int[]? subset in projections)
            {
                int input = count++ % 3;
                var options = new Lz4FastOptions { Projection = subset is null ? null : IpcProjection.ByIndex(subset), MaxDegreeOfParallelism = 2 };
                using Lz4ArrowFileReader reader = input switch
                {
                    0 => new Lz4ArrowFileReader(file, options, SlabMemoryAllocator.Shared, new OfficialFactory()),
                    1 => new Lz4ArrowFileReader(path, options, null, new OfficialFactory()),
                    _ => new Lz4ArrowFileReader(new MemoryStream(file, writable: false), options, null, leaveOpen: false, new OfficialFactory()),
                };
                int[] selected = subset ?? Enumerable.Range(0, fields).ToArray();
                for (int i = reader.RecordBatchCount - 1; i >= 0; i--)
                {
                    using RecordBatch want = Expected(file, i);
                    using (RecordBatch got = reader.ReadRecordBatch(i))
                        AssertProjected(want, selected, got, $"{stream} input {input} [{string.Join(",", selected)}] batch {i}");
                    using (RecordBatch got = await reader.ReadRecordBatchAsync(i))
                        AssertProjected(want, selected, got, $"{stream} input {input} [{string.Join(",", selected)}] batch {i} async");
                }
            }
        }

        [Fact]
        public async Task Without_a_codec_factory_a_ZSTD_batch_or_dictionary_is_not_supported_naming_the_parameter()
        {
            byte[] strings = ZstdFileOf(Corpus.Committed("ipc/rust/strings.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(strings));
            using (var reader = new Lz4ArrowFileReader(strings))
            {
                var e = Assert.Throws<NotSupportedException>(() => reader.ReadRecordBatch(1));
                Assert.Contains("compressionCodecFactory", e.Message, StringComparison.Ordinal);
                Assert.Contains($"record batch 1 of the IPC file (its message at byte offset {footer.RecordBatches[1].Offset})", e.Message, StringComparison.Ordinal);
                e = await Assert.ThrowsAsync<NotSupportedException>(() => reader.ReadRecordBatchAsync(0).AsTask());
                Assert.Contains("compressionCodecFactory", e.Message, StringComparison.Ordinal);
            }

            // A dictionary the selected field uses: refused at its block, before the batch.
            byte[] nested = ZstdFileOf(Corpus.Committed("ipc/pyarrow/nested_dict.arrows"));
            IpcFileFooter nestedFooter = IpcFileFooter.Read(IpcFileSource.Over(nested));
            int dictionaryField = SchemaOf(nested).FieldsList.Select((f, i) => (f, i)).First(p => p.f.DataType is Apache.Arrow.Types.DictionaryType).i;
            using (var reader = new Lz4ArrowFileReader(nested, new Lz4FastOptions { Projection = IpcProjection.ByIndex(dictionaryField) }, null))
            {
                var e = Assert.Throws<NotSupportedException>(() => reader.ReadRecordBatch(0));
                Assert.Contains("dictionary batch of id 0", e.Message, StringComparison.Ordinal);
                Assert.Contains($"byte offset {nestedFooter.Dictionaries[0].Offset}", e.Message, StringComparison.Ordinal);
                Assert.Contains("compressionCodecFactory", e.Message, StringComparison.Ordinal);
            }
        }

        /// <summary>A ZSTD frame broken inside a batch's body: what the codec throws becomes invalid data at the batch's message.</summary>
        [Fact]
        public void A_corrupt_ZSTD_body_is_invalid_data_at_its_batch()
        {
            byte[] file = ZstdFileOf(Corpus.Committed("ipc/rust/strings.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock block = footer.RecordBatches[1];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            (long offset, long length) = buffers.Where(b => b.Length > 64).Last();
            // The ZSTD frame's magic number, after the 8-byte uncompressed length.
            file[block.Body + offset + 8] ^= 0xFF;

            using var reader = new Lz4ArrowFileReader(file, null, null, new OfficialFactory());
            reader.ReadRecordBatch(0).Dispose();
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1));
            Assert.Equal(block.Offset, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            Assert.Contains("record batch 1 of the IPC file", e.Message, StringComparison.Ordinal);
        }

        // fuzz --ipc-file --seed 46 --index 7091: a codec byte the format does not define passed as "not LZ4" to Arrow's
        // reader, which threw NotImplementedException; it is invalid data at the batch's compression table.
        [Fact]
        public void A_body_compression_codec_the_format_does_not_define_is_invalid_data()
        {
            byte[] file = ZstdFileOf(Corpus.Committed("ipc/rust/strings.arrows"));
            IpcFileBlock block = IpcFileFooter.Read(IpcFileSource.Over(file)).RecordBatches[0];
            var flat = new FlatReader(file, (int)block.Offset + 8, block.MetadataLength - 8, block.Offset + 8);
            IpcMessage message = IpcMessageParser.Parse(flat);
            FlatTable compression = flat.SubTable(message.Batch, IpcMessageParser.RecordBatchCompression, "compression");
            int codec = flat.Field(compression, IpcMessageParser.CompressionCodec, 1, "codec");
            Assert.Equal(1, file[block.Offset + 8 + codec]);
            file[block.Offset + 8 + codec] = 9;

            using var reader = new Lz4ArrowFileReader(file, null, null, new OfficialFactory());
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(0));
            Assert.Equal(block.Offset + 8 + codec, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            Assert.Contains("BodyCompression.codec is 9, which the format does not define", e.Message, StringComparison.Ordinal);
        }

        /// <summary>The corpus stream's batches as a ZSTD IPC file, as ArrowFileWriter writes it with Apache.Arrow.Compression.</summary>
        private static byte[] ZstdFileOf(string stream)
        {
            List<RecordBatch> batches = ArrowData.ReadAll(stream, new Lz4FastCodecFactory(new OfficialFactory()));
            try
            {
                using var output = new MemoryStream();
                var options = new IpcOptions { CompressionCodec = CompressionCodecType.Zstd, CompressionCodecFactory = new OfficialFactory() };
                using (var writer = new ArrowFileWriter(output, batches[0].Schema, leaveOpen: true, options))
                {
                    foreach (RecordBatch batch in batches)
                        writer.WriteRecordBatch(batch);
                    writer.WriteEnd();
                }
                return output.ToArray();
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        private static Schema SchemaOf(byte[] file)
        {
            using var reader = new ArrowFileReader(new MemoryStream(file), new OfficialFactory());
            return reader.Schema;
        }

        private static RecordBatch Expected(byte[] file, int index)
        {
            using var reader = new ArrowFileReader(new MemoryStream(file), new OfficialFactory());
            return reader.ReadRecordBatchAsync(index).AsTask().GetAwaiter().GetResult();
        }

        private static void AssertProjected(RecordBatch full, int[] selected, RecordBatch projected, string context)
        {
            Assert.Equal(selected.Select(i => full.Schema.GetFieldByIndex(i).Name), projected.Schema.FieldsList.Select(f => f.Name));
            var expected = new RecordBatch(new Schema(selected.Select(i => full.Schema.GetFieldByIndex(i)), null), selected.Select(i => full.Column(i)), full.Length);
            ArrowData.AssertSame(new[] { expected }, new[] { projected }, allowLongerBuffers: false, context);
        }
    }
}
#endif
