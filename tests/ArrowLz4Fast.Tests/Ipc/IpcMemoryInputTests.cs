#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The <see cref="ReadOnlyMemory{T}"/> constructor (issue #35): every corpus stream and an IPC file read as through
    /// the stream constructor, and bodies decoded from the caller's memory, not from a copy.
    /// </summary>
    public class IpcMemoryInputTests
    {
        public static IEnumerable<object[]> CommittedCases() =>
            Corpus.CommittedIpcFiles().SelectMany(f => new[] { 1, 2 }.Select(d => new object[] { f, d }));

        [Theory]
        [MemberData(nameof(CommittedCases))]
        public void Every_committed_stream_reads_from_memory_as_the_official_reader_reads_it(string file, int degree)
        {
            string path = Corpus.Committed(file);
            List<RecordBatch> official = ArrowData.ReadAll(path, new OfficialFactory());
            // A slice of a larger array: the memory need not start at an array's start.
            byte[] bytes = File.ReadAllBytes(path);
            byte[] padded = new byte[bytes.Length + 24];
            bytes.CopyTo(padded, 13);
            List<RecordBatch> ours = Read(padded.AsMemory(13, bytes.Length), IpcWrapped.Options(degree, 1), new Lz4FastCodecFactory(new OfficialFactory()));
            try
            {
                ArrowData.AssertSame(official, ours);
            }
            finally
            {
                ArrowData.DisposeAll(ours);
                ArrowData.DisposeAll(official);
            }
        }

        [Fact]
        public void An_ipc_file_in_memory_ends_at_its_footer()
        {
            RecordBatch[] batches = TestTables.Batches(3, 20_000, 5);
            byte[] file = IpcWriter.Write(batches, new OfficialFactory(), fileFormat: true);
            List<RecordBatch> official = ArrowData.ReadAll(file, fileFormat: true, new OfficialFactory());
            List<RecordBatch> ours = Read(file, IpcWrapped.Options(2, 1), factory: null);
            Assert.Equal(3, ours.Count);
            ArrowData.AssertSame(official, ours);
            ArrowData.DisposeAll(ours);
            ArrowData.DisposeAll(official);
        }

        /// <summary>
        /// The first record batch's compressed body is overwritten after the wrapper has read its metadata and before
        /// the reader reads the body: decoded from the caller's memory, the read now fails; the stream constructor,
        /// which copied the body, still reads the original. (Before the memory constructor existed, a memory source was a
        /// stream and always copied.)
        /// </summary>
        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void Bodies_are_decoded_from_the_callers_memory(bool memory)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            (int bodyStart, int bodyLength) = FirstRecordBatchBody(bytes);
            using IpcDecompressingStream stream = memory
                ? new IpcDecompressingStream(bytes.AsMemory(), IpcWrapped.Options(1))
                : new IpcDecompressingStream(new BufferedStream(new MemoryStream(bytes, writable: false)), IpcWrapped.Options(1));

            // The schema message, then the batch's prefix: the wrapper has read the batch's metadata and body by then.
            SkipMessage(stream);
            byte[] prefix = ReadExactly(stream, 8);
            byte[] metadata = ReadExactly(stream, BinaryPrimitives.ReadInt32LittleEndian(prefix.AsSpan(4)));
            Assert.NotEmpty(metadata);
            bytes.AsSpan(bodyStart, bodyLength).Fill(0xEE);

            Exception? error = Record.Exception(() => stream.CopyTo(Stream.Null));
            if (memory)
                Assert.IsType<InvalidDataException>(error);
            else
                Assert.Null(error);
        }

        [Fact]
        public void The_base_stream_reads_and_seeks_the_memory()
        {
            byte[] bytes = { 1, 2, 3, 4, 5 };
            using var wrapper = new IpcDecompressingStream(bytes);
            Stream base_ = wrapper.BaseStream;
            Assert.True(base_.CanSeek);
            Assert.Equal(5, base_.Length);
            Assert.Equal(3, base_.Seek(-2, SeekOrigin.End));
            Assert.Equal(4, base_.ReadByte());
            Assert.Throws<IOException>(() => base_.Seek(-1, SeekOrigin.Begin));
        }

        [Fact]
        public void Memory_that_ends_inside_a_body_is_refused_as_truncated()
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            (int bodyStart, _) = FirstRecordBatchBody(bytes);
            // The memory ends inside the first batch's body.
            var error = Assert.Throws<InvalidDataException>(() => Read(bytes.AsMemory(0, bodyStart + 100), IpcWrapped.Options(2), factory: null));
            Assert.Contains("the stream ends inside a message body", error.Message, StringComparison.Ordinal);
        }

        private static List<RecordBatch> Read(ReadOnlyMemory<byte> bytes, Lz4FastOptions options, ICompressionCodecFactory? factory) =>
            ArrowData.ReadAll(new ArrowStreamReader(new IpcDecompressingStream(bytes, options), SlabMemoryAllocator.Shared, factory!, leaveOpen: false));

        /// <summary>Where the stream's first message with a body (its first record batch) has its body in the input.</summary>
        private static (int Start, int Length) FirstRecordBatchBody(byte[] bytes)
        {
            int position = 0;
            while (true)
            {
                int length = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(position + 4));
                int bodyStart = position + 8 + length;
                long body = BodyLength(bytes.AsSpan(position + 8, length));
                if (body > 0)
                    return (bodyStart, (int)body);
                position = bodyStart;
            }
        }

        private static long BodyLength(ReadOnlySpan<byte> metadata) =>
            IpcMessageParser.Parse(new FlatReader(metadata.ToArray(), 0, metadata.Length, 0)).BodyLength;

        private static void SkipMessage(Stream stream)
        {
            byte[] prefix = ReadExactly(stream, 8);
            byte[] metadata = ReadExactly(stream, BinaryPrimitives.ReadInt32LittleEndian(prefix.AsSpan(4)));
            ReadExactly(stream, (int)BodyLength(metadata));
        }

        private static byte[] ReadExactly(Stream stream, int count)
        {
            byte[] buffer = new byte[count];
            int got = 0;
            int n;
            while (got < count && (n = stream.Read(buffer, got, count - got)) > 0)
                got += n;
            Assert.Equal(count, got);
            return buffer;
        }
    }
}
#endif
