using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    // Files past 4 GiB, as Feather files of real tables are: a corpus file's messages moved 5 GiB into a sparse file
    // (its footer's block offsets moved with them, which the format allows: a reader follows the footer), so every
    // offset the random-access reader handles is past what an int or a uint holds. Each batch must equal the small
    // file's, and an error must give its offset in the large file.
    public sealed partial class Lz4ArrowFileReaderTests
    {
        private const long Gap = 5L << 30;

        [Theory]
        [InlineData("ipc/rust/strings.arrows", false)]
        [InlineData("ipc/rust/strings.arrows", true)]
        [InlineData("ipc/java/nested_dict.arrows", false)]
        [InlineData("ipc/java/nested_dict.arrows", true)]
        public void Every_batch_of_a_file_past_4_GiB_equals_the_small_files(string stream, bool fromStream)
        {
            byte[] small = FileOf(Corpus.Committed(stream));
            string path = Spread(small);
            Assert.True(new FileInfo(path).Length > Gap);
            using var expected = new ArrowFileReader(new MemoryStream(small), Factory());
            int fields = expected.Schema.FieldsList.Count;
            foreach (int[]? subset in new[] { null, new[] { fields - 1 }, new[] { 0, fields - 1 } }.Distinct())
            {
                var options = new Lz4FastOptions { Projection = subset is null ? null : IpcProjection.ByIndex(subset.Distinct()), MaxDegreeOfParallelism = 2 };
                using Lz4ArrowFileReader reader = fromStream
                    ? new Lz4ArrowFileReader(File.OpenRead(path), options, null, leaveOpen: false)
                    : new Lz4ArrowFileReader(path, options, null);
                int count = reader.RecordBatchCount;
                Assert.True(count > 1, stream);
                int[] selected = subset?.Distinct().ToArray() ?? Enumerable.Range(0, fields).ToArray();
                foreach (int i in new[] { count - 1, 0, count / 2 })
                {
                    using RecordBatch want = Expected(small, i);
                    using RecordBatch got = reader.ReadRecordBatch(i);
                    var wanted = new RecordBatch(new Schema(selected.Select(f => want.Schema.GetFieldByIndex(f)), null), selected.Select(f => want.Column(f)), want.Length);
                    ArrowData.AssertSame(new[] { wanted }, new[] { got }, allowLongerBuffers: false, $"{stream} batch {i} [{(subset is null ? "all" : string.Join(",", selected))}]");
                }
            }
        }

        [Fact]
        public void A_corrupt_frame_past_4_GiB_is_invalid_data_at_its_offset_in_the_large_file()
        {
            byte[] small = FileOf(Corpus.Committed("ipc/rust/strings.arrows"));
            IpcFileBlock block = IpcFileFooter.Read(IpcFileSource.Over(small)).RecordBatches[1];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(small.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            long at = block.Body + buffers[5].Offset + 8;
            small[at] ^= 0xFF;    // field 1's data buffer: its LZ4 frame's magic number
            string path = Spread(small);

            using var reader = new Lz4ArrowFileReader(path, new Lz4FastOptions { Projection = IpcProjection.ByIndex(1) }, null);
            reader.ReadRecordBatch(0).Dispose();
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1));
            Assert.Equal(at + Gap, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            Assert.Contains("record batch 1 of the IPC file", e.Message, StringComparison.Ordinal);
        }

        /// <summary>
        /// <paramref name="file"/> with its messages (from its first block to its end) moved <see cref="Gap"/> bytes on in
        /// a sparse file, and each footer block's offset with them.
        /// </summary>
        private string Spread(byte[] file)
        {
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            IEnumerable<IpcFileBlock> blocks = footer.Dictionaries.Concat(footer.RecordBatches);
            long first = blocks.Min(b => b.Offset);
            byte[] moved = file.AsSpan((int)first).ToArray();
            foreach (IpcFileBlock block in blocks)
            {
                Span<byte> entry = moved.AsSpan((int)(block.FooterEntry - first), 8);
                Assert.Equal(block.Offset, BinaryPrimitives.ReadInt64LittleEndian(entry));
                BinaryPrimitives.WriteInt64LittleEndian(entry, block.Offset + Gap);
            }
            string path = Path.Combine(_directory, Guid.NewGuid().ToString("N") + ".arrow");
            using (var output = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
            {
                output.Write(file, 0, (int)first);
                output.Seek(first + Gap, SeekOrigin.Begin);
                output.Write(moved, 0, moved.Length);
            }
            return path;
        }
    }
}
