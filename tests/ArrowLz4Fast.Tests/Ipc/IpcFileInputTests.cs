#if !WITHOUT_OFFICIAL_CODEC
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
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The stream's input read from a <see cref="FileStream"/>: on .NET 8 at positions on its handle, each thread
    /// reading the buffers it decodes; on netstandard2.0 as a plain seekable stream. Every corpus stream, and IPC files
    /// written from them, read through a file equal the official codec's batches, at one and at two threads, with
    /// synchronous and asynchronous reads; a file left open continues where the IPC stream ended.
    /// </summary>
    public sealed class IpcFileInputTests : IDisposable
    {
        private readonly string _directory = Path.Combine(Path.GetTempPath(), "ipc-file-input-" + Guid.NewGuid().ToString("N"));

        public IpcFileInputTests() => Directory.CreateDirectory(_directory);

        public static IEnumerable<object[]> Cases() =>
            from file in Corpus.CommittedIpcFiles()
            from degree in new[] { 1, 2 }
            select new object[] { file, degree };

        public void Dispose() => Directory.Delete(_directory, recursive: true);

        [Theory]
        [MemberData(nameof(Cases))]
        public async Task A_corpus_stream_read_from_a_file_equals_the_official_batches(string file, int degree)
        {
            string path = Corpus.Committed(file);
            // The ZSTD stream's bodies pass through to the inner codec.
            var factory = new Lz4FastCodecFactory(new OfficialFactory());
            List<RecordBatch> official = ArrowData.ReadAll(path, new OfficialFactory());
            await AssertReadsAs(official, path, degree, factory, fileFormat: false);
            ArrowData.DisposeAll(official);
        }

        [Theory]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        [InlineData("ipc/rust/strings.arrows")]
        [InlineData("ipc/pyarrow/tiny_batches.arrows")]
        public async Task An_ipc_file_read_from_a_file_equals_the_official_batches(string file)
        {
            List<RecordBatch> official = ArrowData.ReadAll(Corpus.Committed(file), new OfficialFactory());
            string path = Path.Combine(_directory, "written.arrow");
            File.WriteAllBytes(path, IpcWriter.Write(official, new OfficialFactory(), fileFormat: true));
            foreach (int degree in new[] { 1, 2 })
                await AssertReadsAs(official, path, degree, null, fileFormat: true);
            ArrowData.DisposeAll(official);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void A_file_left_open_continues_where_the_ipc_stream_ended(int degree)
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            byte[] trailer = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
            string path = Path.Combine(_directory, "trailed.arrows");
            File.WriteAllBytes(path, stream.Concat(trailer).ToArray());

            using FileStream input = File.OpenRead(path);
            using (var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, 1), leaveOpen: true), SlabMemoryAllocator.Shared))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
            }

            Assert.Equal(stream.Length, input.Position);
            var rest = new byte[trailer.Length + 1];
            Assert.Equal(trailer.Length, input.Read(rest, 0, rest.Length));
            Assert.Equal(trailer, rest.Take(trailer.Length));
        }

        /// <summary>
        /// A file that shrinks after a body's metadata was served, while the body is still to be read (at positions, by
        /// the threads that decode it, on .NET 8): the read of the body is an <see cref="InvalidDataException"/> at the
        /// offset where the file now ends, never another exception.
        /// </summary>
        [Theory]
        [InlineData(2, false)]
        [InlineData(4, false)]
        [InlineData(2, true)]
        public async Task A_file_that_ends_inside_a_deferred_body_is_invalid_data(int degree, bool asynchronous)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            Lz4FastOptions options = IpcWrapped.Options(degree, 1);
            // Where the first body starts in the decompressed stream: after the schema and the batch's rewritten metadata.
            byte[] decompressed = IpcWrapped.Drain(bytes, options, new[] { 0 });
            int schema = 8 + BitConverter.ToInt32(decompressed, 4);
            int bodyStart = schema + 8 + BitConverter.ToInt32(decompressed, schema + 4);
            string path = Path.Combine(_directory, "shrinking.arrows");
            File.WriteAllBytes(path, bytes);
            long cut = first.Body + (first.BodyLength / 2);

            using var input = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            using var stream = new IpcDecompressingStream(input, options);
            var buffer = new byte[decompressed.Length];
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

        private static async Task AssertReadsAs(List<RecordBatch> official, string path, int degree, ICompressionCodecFactory? factory, bool fileFormat)
        {
            foreach (bool asynchronous in new[] { false, true })
            {
                using FileStream input = File.OpenRead(path);
                using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, 1)), SlabMemoryAllocator.Shared, factory!, leaveOpen: false);
                var ours = new List<RecordBatch>();
                while ((asynchronous ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                    ours.Add(batch);
                ArrowData.AssertSame(official, ours, allowLongerBuffers: false, $"{path} degree {degree} async {asynchronous} file {fileFormat}");
                ArrowData.DisposeAll(ours);
            }
        }
    }
}
#endif
