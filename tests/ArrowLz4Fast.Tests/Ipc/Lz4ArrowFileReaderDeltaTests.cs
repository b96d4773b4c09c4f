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

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Delta dictionary batches in random access (<see cref="Lz4ArrowFileReader"/>): as the format spec says ("delta
    /// dictionaries are applied in the order they appear in the file footer") and Arrow C++'s and Arrow .NET's file
    /// readers do, every batch sees the dictionary with all its deltas; its values equal a sequential read's. A second
    /// dictionary of an id that is not a delta (a replacement) is invalid in a file.
    /// </summary>
    public sealed class Lz4ArrowFileReaderDeltaTests
    {
        [Fact]
        public async Task Every_batch_of_a_file_with_a_delta_dictionary_equals_ArrowFileReaders_and_a_sequential_reads_values()
        {
            byte[] file = DeltaDictionaryFile.Build(new Lz4FastCodecFactory());
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            Assert.Equal(2, footer.Dictionaries.Length);
            Assert.True(footer.Dictionaries[1].Offset > footer.RecordBatches[0].Offset, "the delta lies between batches 0 and 1");
            List<RecordBatch> sequential = ArrowData.ReadAll(new ArrowStreamReader(new IpcDecompressingStream(file.AsMemory()), SlabMemoryAllocator.Shared));
            Assert.Equal(DeltaDictionaryFile.Base.Length, ((DictionaryArray)sequential[0].Column(1)).Dictionary.Length);

            foreach (int[]? projection in new[] { null, new[] { 1 }, new[] { 0 } })
            {
                foreach (bool asynchronous in new[] { false, true })
                {
                    var options = new Lz4FastOptions { Projection = projection is null ? null : IpcProjection.ByIndex(projection), MaxDegreeOfParallelism = 2 };
                    using var reader = new Lz4ArrowFileReader(file, options, SlabMemoryAllocator.Shared);
                    Assert.Equal(3, reader.RecordBatchCount);
                    int[] selected = projection ?? new[] { 0, 1 };
                    foreach (int i in new[] { 2, 0, 1 })
                    {
                        string context = $"[{string.Join(",", selected)}] async {asynchronous} batch {i}";
                        using RecordBatch got = asynchronous ? await reader.ReadRecordBatchAsync(i) : reader.ReadRecordBatch(i);
                        using (RecordBatch want = Expected(file, i))
                            AssertProjected(want, selected, got, context);
                        if (selected.Contains(1))
                        {
                            var category = (DictionaryArray)got.Column(System.Array.IndexOf(selected, 1));
                            Assert.Equal(DeltaDictionaryFile.Base.Length + DeltaDictionaryFile.Delta.Length, category.Dictionary.Length);
                            Assert.Equal(Values((DictionaryArray)sequential[i].Column(1)), Values(category));
                        }
                    }
                }
            }
            // After the delta, a sequential read sees the whole dictionary too: the last batch is the same whole.
            using (var reader = new Lz4ArrowFileReader(file))
            using (RecordBatch last = reader.ReadRecordBatch(2))
                ArrowData.AssertSame(new[] { sequential[2] }, new[] { last }, allowLongerBuffers: false, "last batch against the sequential read");
            ArrowData.DisposeAll(sequential);
        }

        [Fact]
        public void A_second_dictionary_of_an_id_that_is_not_a_delta_is_invalid_data_at_its_block()
        {
            byte[] file = DeltaDictionaryFile.Build(new Lz4FastCodecFactory());
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IpcFileBlock delta = footer.Dictionaries[1];
            // The delta's isDelta byte (DictionaryBatch table at 56 of the metadata, the flag 16 bytes in) cleared.
            long flag = delta.Offset + 8 + 56 + 16;
            Assert.Equal(1, file[flag]);
            file[flag] = 0;

            using var reader = new Lz4ArrowFileReader(file);
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(0));
            Assert.Equal(delta.Offset, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            Assert.Contains("replaces dictionary id 0", e.Message, StringComparison.Ordinal);
        }

        // fuzz --ipc-file --seed 46 --index 3815: a delta whose node claims nulls without a validity buffer made Arrow's
        // reader throw a bare Exception as it concatenated the dictionary; it is invalid data at the batch read.
        [Fact]
        public void A_delta_claiming_nulls_without_a_validity_buffer_is_invalid_data()
        {
            byte[] file = DeltaDictionaryFile.Build(new Lz4FastCodecFactory());
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            // The delta's one field node (its vector's elements at 144 of the metadata): length, then null count.
            long nullCount = footer.Dictionaries[1].Offset + 8 + 144 + 8;
            Assert.Equal(0, System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(file.AsSpan((int)nullCount)));
            System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(file.AsSpan((int)nullCount), 3);

            using var reader = new Lz4ArrowFileReader(file);
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1));
            Assert.Equal(footer.RecordBatches[1].Offset, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        private static string?[] Values(DictionaryArray array)
        {
            var dictionary = (StringArray)array.Dictionary;
            var indices = (Int32Array)array.Indices;
            return Enumerable.Range(0, array.Length).Select(i => indices.IsNull(i) ? null : dictionary.GetString(indices.GetValue(i)!.Value)).ToArray();
        }

        /// <summary>Batch <paramref name="index"/> as Arrow .NET's file reader reads it (every dictionary block first).</summary>
        private static RecordBatch Expected(byte[] file, int index)
        {
            using var reader = new ArrowFileReader(new MemoryStream(file), new Lz4FastCodecFactory());
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
