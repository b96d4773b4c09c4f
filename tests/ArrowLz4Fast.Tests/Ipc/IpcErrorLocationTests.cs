using System;
using System.Buffers.Binary;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A defect read through <see cref="IpcDecompressingStream"/> is named by its message, its record batch (index in
    /// the stream), its field (name and path, read from the schema by Arrow's own reader here) and its buffer, beside
    /// its byte offset. strings.arrows (pyarrow): two record batches of two utf8 columns, buffers 0-2 and 3-5.
    /// </summary>
    public class IpcErrorLocationTests
    {
        private const string Strings = "ipc/pyarrow/strings.arrows";

        [Theory]
        [InlineData(1, 2, 0, "data")]
        [InlineData(2, 1, 0, "offsets")]
        [InlineData(2, 5, 1, "data")]
        public void A_corrupt_frame_names_its_record_batch_field_and_buffer(int message, int buffer, int column, string role)
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, _) = IpcVerifyingReadTests.Buffer(stream, message, buffer);
            byte[] corrupt = (byte[])stream.Clone();
            corrupt[start + 8] ^= 0xFF;    // the frame's magic number
            string name = FieldName(stream, column);

            foreach (int degree in new[] { 1, 4 })
            {
                InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, IpcWrapped.Options(degree), SlabMemoryAllocator.Shared, null)));
                Assert.Contains($"In message {message} of the stream (record batch {message - 1}, counted from 0): body buffer {buffer} ({role}) of field '{name}', path '{name}', field node {column}.", e.Message, StringComparison.Ordinal);
                Assert.Equal(start + 8, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            }
        }

        /// <summary>
        /// A batch decoded on helpers fails as the buffers decoded in order do: the same words, offset and
        /// <see cref="Lz4FrameException.Kind"/>, carried from the failing buffer's data (no second decode to reword it).
        /// With two defects, the first in body order is reported, whichever thread met which first.
        /// </summary>
        [Theory]
        [InlineData("magic", "BadMagic")]
        [InlineData("declared", "DecodedLength")]
        [InlineData("two", "BadMagic")]
        public void A_failed_parallel_batch_fails_as_the_buffers_in_order_do_with_its_kind(string defect, string kind)
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int offsets, _) = IpcVerifyingReadTests.Buffer(stream, 1, 1);
            (int data, _) = IpcVerifyingReadTests.Buffer(stream, 1, 2);
            byte[] corrupt = (byte[])stream.Clone();
            long at;
            switch (defect)
            {
                case "magic":
                    corrupt[data + 8] ^= 0xFF;
                    at = data + 8;
                    break;
                case "declared":
                    // One byte more than the frame decodes to: it ends early, at its end.
                    BinaryPrimitives.WriteInt64LittleEndian(corrupt.AsSpan(data), BinaryPrimitives.ReadInt64LittleEndian(corrupt.AsSpan(data)) + 1);
                    at = -1;
                    break;
                default:
                    // The large data buffer is claimed first; the offsets buffer before it in the body is the one reported.
                    corrupt[data + 8] ^= 0xFF;
                    corrupt[offsets + 8] ^= 0xFF;
                    at = offsets + 8;
                    break;
            }

            InvalidDataException inOrder = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, IpcWrapped.Options(1), SlabMemoryAllocator.Shared, null)));
            Lz4FrameException expected = Assert.IsType<Lz4FrameException>(inOrder.InnerException);
            Assert.Equal(kind, expected.Kind.ToString());
            if (at >= 0)
                Assert.Equal(at, expected.Offset);
            foreach (int degree in new[] { 2, 4 })
            {
                InvalidDataException batch = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, IpcWrapped.Options(degree, minimumParallelLength: 1), SlabMemoryAllocator.Shared, null)));
                Lz4FrameException frame = Assert.IsType<Lz4FrameException>(batch.InnerException);
                Assert.Equal(inOrder.Message, batch.Message);
                Assert.Equal(expected.Kind, frame.Kind);
                Assert.Equal(expected.Offset, frame.Offset);
                Assert.Equal(expected.Detail, frame.Detail);
            }
        }

        /// <summary>
        /// A frame that decodes to fewer bytes than its buffer declares is found at the frame's end, which is the buffer's
        /// end: the buffer and field are still named, decoded in order or on helpers.
        /// </summary>
        [Fact]
        public void A_frame_decoding_short_of_its_declared_length_names_its_buffer()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, long length) = IpcVerifyingReadTests.Buffer(stream, 1, 2);
            byte[] corrupt = (byte[])stream.Clone();
            BinaryPrimitives.WriteInt64LittleEndian(corrupt.AsSpan(start), BinaryPrimitives.ReadInt64LittleEndian(corrupt.AsSpan(start)) + 1);
            string name = FieldName(stream, 0);

            foreach (Lz4FastOptions options in new[] { IpcWrapped.Options(1), IpcWrapped.Options(4, minimumParallelLength: 1) })
            {
                InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, options, SlabMemoryAllocator.Shared, null)));
                Lz4FrameException frame = Assert.IsType<Lz4FrameException>(e.InnerException);
                Assert.Equal(Lz4FrameErrorKind.DecodedLength, frame.Kind);
                Assert.Equal(start + length, frame.Offset);
                Assert.Contains($"(record batch 0, counted from 0): body buffer 2 (data) of field '{name}', path '{name}', field node 0.", e.Message, StringComparison.Ordinal);
            }
        }

        [Fact]
        public void A_bad_length_prefix_names_its_buffer_from_the_metadata()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, _) = IpcVerifyingReadTests.Buffer(stream, 2, 4);
            byte[] corrupt = (byte[])stream.Clone();
            BinaryPrimitives.WriteInt64LittleEndian(corrupt.AsSpan(start), -5);
            string name = FieldName(stream, 1);

            InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, IpcWrapped.Options(1), SlabMemoryAllocator.Shared, null)));
            Assert.Contains("declares a negative uncompressed length", e.Message, StringComparison.Ordinal);
            Assert.Contains($"(record batch 1, counted from 0): body buffer 4 (offsets) of field '{name}', path '{name}', field node 1.", e.Message, StringComparison.Ordinal);
            Assert.Equal(start, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        [Fact]
        public void The_framed_reader_keeps_the_names_with_its_own_offset_wording()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, _) = IpcVerifyingReadTests.Buffer(stream, 1, 2);
            byte[] corrupt = (byte[])stream.Clone();
            corrupt[start + 8] ^= 0xFF;
            using var framed = new MemoryStream();
            using (var writer = new Lz4FrameStream(framed, System.IO.Compression.CompressionMode.Compress, leaveOpen: true))
                writer.Write(corrupt, 0, corrupt.Length);

            using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(framed.ToArray()));
            InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(ArrowData.ReadAll(reader)));
            Assert.Contains("of the IPC stream decompressed from the LZ4 frame", e.Message, StringComparison.Ordinal);
            Assert.Contains($"(record batch 0, counted from 0): body buffer 2 (data) of field '{FieldName(stream, 0)}'", e.Message, StringComparison.Ordinal);
        }

        /// <summary>
        /// A defect in a selected buffer of a projected read has the offset it has without the projection: in the input,
        /// not in the compacted body the selected buffers are gathered into. Field 0's three buffers lie before it in the
        /// body, so an offset counted in the compacted body would be theirs less. From memory, a plain stream (gathered
        /// by the caller) and a file (read at positions by the decoding threads), in order and on helpers.
        /// </summary>
        [Theory]
        [InlineData("memory", "magic")]
        [InlineData("stream", "magic")]
        [InlineData("file", "magic")]
        [InlineData("memory", "prefix")]
        [InlineData("file", "prefix")]
        public void A_defect_in_a_projected_buffer_has_its_offset_in_the_input(string input, string defect)
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, _) = IpcVerifyingReadTests.Buffer(stream, 2, 5);
            byte[] corrupt = (byte[])stream.Clone();
            long at;
            if (defect == "magic")
            {
                corrupt[start + 8] ^= 0xFF;
                at = start + 8;
            }
            else
            {
                BinaryPrimitives.WriteInt64LittleEndian(corrupt.AsSpan(start), -5);
                at = start;
            }
            string name = FieldName(stream, 1);
            string path = Path.Combine(Path.GetTempPath(), $"projected-defect-{Guid.NewGuid():N}.arrows");
            File.WriteAllBytes(path, corrupt);
            try
            {
                foreach (int degree in new[] { 1, 4 })
                {
                    var options = new Lz4FastOptions { MaxDegreeOfParallelism = degree, Projection = IpcProjection.ByIndex(1) };
                    InvalidDataException e = Assert.Throws<InvalidDataException>(() =>
                    {
                        using Stream wrapped = input switch
                        {
                            "memory" => new IpcDecompressingStream(corrupt.AsMemory(), options),
                            "stream" => new IpcDecompressingStream(new TrickleStream(corrupt, seed: degree, 1 << 16), options),
                            _ => new IpcDecompressingStream(File.OpenRead(path), options),
                        };
                        using var reader = new ArrowStreamReader(wrapped, SlabMemoryAllocator.Shared);
                        while (reader.ReadNextRecordBatch() is RecordBatch batch)
                            batch.Dispose();
                    });
                    Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                    Assert.Contains($"at byte offset {at} of the input stream", e.Message, StringComparison.Ordinal);
                    Assert.True(e.Message.Contains($"(record batch 1, counted from 0): body buffer 2 (data) of field '{name}'", StringComparison.Ordinal), e.Message);
                }
            }
            finally
            {
                File.Delete(path);
            }
        }

        /// <summary>The name of a top-level field, as Arrow's reader reads the schema.</summary>
        private static string FieldName(byte[] stream, int column)
        {
            using var reader = new ArrowStreamReader(new MemoryStream(stream), new Lz4FastCodecFactory());
            Schema schema = reader.Schema;
            return schema.FieldsList[column].Name;
        }
    }
}
