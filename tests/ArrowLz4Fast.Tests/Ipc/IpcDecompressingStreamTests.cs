#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="IpcDecompressingStream"/> on the real corpus: Arrow's stream reader over the wrapper reads the same
    /// batches as Apache.Arrow.Compression's official reader reads from the compressed input, at every degree.
    /// </summary>
    public class IpcDecompressingStreamTests
    {
        private readonly ITestOutputHelper _output;

        public IpcDecompressingStreamTests(ITestOutputHelper output) => _output = output;

        public static IEnumerable<object[]> CommittedCases() =>
            Corpus.CommittedIpcFiles().SelectMany(f => Degrees().Select(d => new object[] { f, d.Degree, d.Minimum }));

        public static IEnumerable<object[]> SharedCases() =>
            Corpus.SharedOnlyIpcFiles.SelectMany(f => Degrees().Select(d => new object[] { f, d.Degree, d.Minimum }));

        // Degree 1; 2 and 8 with the default threshold; 2 and 8 with every message parallel, so small files go parallel too.
        private static IEnumerable<(int Degree, int Minimum)> Degrees() =>
            new[] { (1, 262144), (2, 262144), (8, 262144), (2, 1), (8, 1) };

        [Theory]
        [MemberData(nameof(CommittedCases))]
        public void Committed_stream_reads_as_the_official_reader_reads_it(string file, int degree, int minimum) =>
            AssertSameAsOfficial(Corpus.Committed(file), degree, minimum);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedCases))]
        public void Large_shared_stream_reads_as_the_official_reader_reads_it(string file, int degree, int minimum) =>
            AssertSameAsOfficial(Corpus.Shared(file), degree, minimum);

        private void AssertSameAsOfficial(string path, int degree, int minimum)
        {
            List<RecordBatch> official = ArrowData.ReadAll(path, new OfficialFactory());
            List<RecordBatch> ours = IpcWrapped.ReadAll(File.ReadAllBytes(path), IpcWrapped.Options(degree, minimum), SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new OfficialFactory()));
            try
            {
                Assert.True(official.Count > 0 || path.Contains("empty", StringComparison.Ordinal), "the official reader read no batch");
                ArrowData.AssertSame(official, ours);
                _output.WriteLine($"{Path.GetFileName(path)}: {ours.Count} batches equal at degree {degree}, threshold {minimum}");
            }
            finally
            {
                ArrowData.DisposeAll(ours);
            }
        }

        public static IEnumerable<object[]> DotNetCases() =>
            from legacy in new[] { false, true }
            from official in new[] { false, true }
            from degree in new[] { 1, 2, 8 }
            select new object[] { legacy, official, degree };

        /// <summary>Arrow .NET as the producer: its official codec writes linked 64 KiB blocks, ours independent ones; also the legacy framing without the continuation token.</summary>
        [Theory]
        [MemberData(nameof(DotNetCases))]
        public void Arrow_dotnet_stream_reads_as_the_official_reader_reads_it(bool legacy, bool officialWriter, int degree)
        {
            RecordBatch[] batches = TestTables.Batches(3, 50_000, 5);
            byte[] bytes = IpcWriter.Write(batches, officialWriter ? new OfficialFactory() : new Lz4FastCodecFactory(), fileFormat: false, legacy: legacy);
            if (legacy)
                Assert.NotEqual(-1, BitConverter.ToInt32(bytes, 0));
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat: false, new OfficialFactory());
            List<RecordBatch> ours = IpcWrapped.ReadAll(bytes, IpcWrapped.Options(degree, 1), SlabMemoryAllocator.Shared, factory: null);
            ArrowData.AssertSame(official, ours);
            ArrowData.AssertSameValues(batches, ours);
            ArrowData.DisposeAll(ours);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void An_ipc_file_reads_every_batch_in_order(int degree)
        {
            RecordBatch[] batches = TestTables.Batches(4, 20_000, 9);
            byte[] file = IpcWriter.Write(batches, new OfficialFactory(), fileFormat: true);
            List<RecordBatch> official = ArrowData.ReadAll(file, fileFormat: true, new OfficialFactory());
            List<RecordBatch> ours = IpcWrapped.ReadAll(file, IpcWrapped.Options(degree, 1), SlabMemoryAllocator.Shared, factory: null);
            Assert.Equal(4, ours.Count);
            ArrowData.AssertSame(official, ours);
            ArrowData.DisposeAll(ours);

            // Not seekable: the stream ends at the end-of-stream marker the writer puts before the footer.
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new ForwardOnlyStream(file)), SlabMemoryAllocator.Shared);
            int count = 0;
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                ArrowData.AssertSame(new[] { official[count] }, new[] { batch });
                batch.Dispose();
                count++;
            }
            Assert.Equal(4, count);
        }

        [Fact]
        public void Zstd_messages_pass_through_to_the_inner_codec()
        {
            string path = Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows");
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path)), SlabMemoryAllocator.Shared, null!, leaveOpen: false);
            // Without a factory Arrow cannot decode the ZSTD buffers: the wrapper left them compressed.
            Assert.ThrowsAny<Exception>(() => reader.ReadNextRecordBatch());
        }

        public static IEnumerable<object[]> ReadSizeCases() =>
            new[] { "ipc/pyarrow/nested_dict.arrows", "ipc/rust/strings.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/tiny_batches.arrows", "ipc/pyarrow/numeric_zstd.arrows", "ipc/pyarrow/nested_dict_minsavings.arrows" }
                .Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(ReadSizeCases))]
        public async Task Reads_of_any_size_give_the_bytes_of_whole_reads(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            byte[] whole = IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 });
            var random = new Random(file.Length);
            int[] sizes = Enumerable.Range(0, 97).Select(_ => random.Next(4) switch { 0 => 1, 1 => random.Next(1, 9), 2 => random.Next(1, 5000), _ => random.Next(1, 300_000) }).ToArray();
            Assert.Equal(whole, IpcWrapped.Drain(bytes, IpcWrapped.Options(1), sizes));
            Assert.Equal(whole, IpcWrapped.Drain(bytes, IpcWrapped.Options(8, 1), sizes));

            using var stream = new IpcDecompressingStream(new MemoryStream(bytes));
            using var output = new MemoryStream();
            byte[] buffer = new byte[300_000];
            for (int i = 0; ; i++)
            {
                int n = await stream.ReadAsync(buffer.AsMemory(0, sizes[i % sizes.Length]));
                if (n == 0)
                    break;
                output.Write(buffer, 0, n);
            }
            Assert.Equal(whole, output.ToArray());

            // The decompressed stream is an uncompressed IPC stream: the official reader reads it with no codec at all.
            var plain = ArrowData.ReadAll(whole, fileFormat: false, factory: file.Contains("zstd", StringComparison.Ordinal) ? new OfficialFactory() : null!);
            ArrowData.AssertSame(ArrowData.ReadAll(Corpus.Committed(file), new OfficialFactory()), plain);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public async Task Async_batches_equal_the_official_reader_and_cancellation_is_respected(int degree)
        {
            string path = Corpus.Committed("ipc/rust/nested_dict.arrows");
            List<RecordBatch> official = ArrowData.ReadAll(path, new OfficialFactory());
            var ours = new List<RecordBatch>();
            using (var reader = new ArrowStreamReader(new IpcDecompressingStream(new SlowAsyncStream(File.ReadAllBytes(path)), IpcWrapped.Options(degree, 1)), SlabMemoryAllocator.Shared))
            {
                while (await reader.ReadNextRecordBatchAsync() is RecordBatch batch)
                    ours.Add(batch);
            }
            ArrowData.AssertSame(official, ours);
            ArrowData.DisposeAll(ours);

            using var cancel = new CancellationTokenSource();
            using var cancelled = new ArrowStreamReader(new IpcDecompressingStream(new SlowAsyncStream(File.ReadAllBytes(path))), SlabMemoryAllocator.Shared);
            cancel.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await cancelled.ReadNextRecordBatchAsync(cancel.Token));
        }

        [Fact]
        public void A_body_over_the_limit_is_refused_before_the_reader_allocates_it()
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            var allocator = new CountingAllocator();
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(bytes), maxBodyLength: 1000), allocator);
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadNextRecordBatch());
            Assert.Contains("limit", e.Message, StringComparison.Ordinal);
            Assert.IsType<Frames.Lz4FrameException>(e.InnerException);
            Assert.True(((Frames.Lz4FrameException)e.InnerException!).Offset > 0);
            Assert.Equal(0, allocator.LargestRequest);
        }

        [Fact]
        public void Constructor_checks_its_arguments()
        {
            Assert.Throws<ArgumentNullException>(() => new IpcDecompressingStream((Stream)null!));
            Assert.Throws<ArgumentOutOfRangeException>(() => new IpcDecompressingStream(new MemoryStream(), maxBodyLength: -1));
            Assert.Throws<ArgumentOutOfRangeException>(() => new IpcDecompressingStream(new byte[8], null, maxBodyLength: -1));
            using var stream = new IpcDecompressingStream(new MemoryStream());
            Assert.True(stream.CanRead);
            Assert.False(stream.CanSeek);
            Assert.False(stream.CanWrite);
            Assert.Equal(0, stream.Read(new byte[8], 0, 8));
        }

        [Fact]
        public void Dispose_leaves_the_input_open_only_when_asked()
        {
            var input = new MemoryStream(new byte[8]);
            new IpcDecompressingStream(input, leaveOpen: true).Dispose();
            Assert.True(input.CanRead);
            new IpcDecompressingStream(input).Dispose();
            Assert.False(input.CanRead);
        }

        private sealed class ForwardOnlyStream : MemoryStream
        {
            public ForwardOnlyStream(byte[] bytes)
                : base(bytes, writable: false)
            {
            }

            public override bool CanSeek => false;
        }

        /// <summary>Returns at most 1000 bytes a read, after yielding, so the wrapper's async path really waits.</summary>
        private sealed class SlowAsyncStream : MemoryStream
        {
            public SlowAsyncStream(byte[] bytes)
                : base(bytes, writable: false)
            {
            }

            public override bool CanSeek => false;

            public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
            {
                await Task.Yield();
                cancellationToken.ThrowIfCancellationRequested();
                return Read(buffer.Span.Slice(0, Math.Min(buffer.Length, 1000)));
            }
        }

        private sealed class CountingAllocator : Apache.Arrow.Memory.NativeMemoryAllocator
        {
            public int LargestRequest { get; private set; }

            protected override System.Buffers.IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
            {
                LargestRequest = Math.Max(LargestRequest, length);
                return base.AllocateInternal(length, out bytesAllocated);
            }
        }
    }
}
#endif
