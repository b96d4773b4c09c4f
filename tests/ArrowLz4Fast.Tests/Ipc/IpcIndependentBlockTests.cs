#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Issue #35's shape: corpus streams written again with independent 64 KiB blocks (as Arrow Go and python-lz4
    /// write), read through the wrapper, whose large frames of such blocks are split into block ranges over the
    /// threads; bodies decoded where a MemoryStream input holds them, or from the stream's own copy otherwise.
    /// </summary>
    public class IpcIndependentBlockTests
    {
        private const string Numeric = "ipc/pyarrow/numeric.arrows";
        private const string Strings = "ipc/pyarrow/strings.arrows";

        /// <summary>
        /// How the wrapper gets its input: a MemoryStream or a ReadOnlyMemory (the body is borrowed), any other stream
        /// (copied), read asynchronously, or a file (read at positions; a body that must be whole before it decodes, as
        /// split frames' is, is read on every thread).
        /// </summary>
        public enum Input
        {
            Memory,
            ReadOnlyMemory,
            Copied,
            Async,
            File,
        }

        public static IEnumerable<object[]> Cases(bool shared) =>
            from input in new[] { Input.Memory, Input.ReadOnlyMemory, Input.Copied, Input.Async, Input.File }
            from degree in new[] { (1, 262144), (2, 262144), (2, 1) }
            select new object[] { shared ? Numeric : Strings, input, degree.Item1, degree.Item2 };

        public static IEnumerable<object[]> CommittedCases() => Cases(shared: false);

        public static IEnumerable<object[]> SharedCases() => Cases(shared: true);

        [Theory]
        [MemberData(nameof(CommittedCases))]
        public Task Committed_stream_with_independent_blocks_reads_as_the_official_reader_reads_it(string file, Input input, int degree, int minimum) =>
            AssertSameAsOfficial(Corpus.Committed(file), input, degree, minimum);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedCases))]
        public Task Shared_numeric_stream_with_independent_blocks_reads_as_the_official_reader_reads_it(string file, Input input, int degree, int minimum) =>
            AssertSameAsOfficial(Corpus.Shared(file), input, degree, minimum);

        /// <summary>
        /// The numeric stream's batches are five 1-2 MB buffers of independent blocks: at two threads each is decoded
        /// with its blocks spread (the frame package reports the blocks it decoded in parallel for this thread's calls),
        /// where before the change each buffer went whole to one thread and no block was decoded in parallel.
        /// </summary>
        [SharedCorpusTheory]
        [InlineData(Input.Memory)]
        [InlineData(Input.ReadOnlyMemory)]
        [InlineData(Input.Copied)]
        [InlineData(Input.File)]
        public async Task Large_frames_of_independent_blocks_are_split_into_block_ranges(Input input)
        {
            byte[] bytes = Rewrite(Corpus.Shared(Numeric));
            using var events = new FramesEvents();
            List<RecordBatch> ours = await Read(bytes, input, IpcWrapped.Options(2));
            ArrowData.DisposeAll(ours);
            Assert.Equal(4, ours.Count);
            // 4 batches of 5 buffers of 1-2 MB in 64 KiB blocks: well over a hundred blocks decoded in parallel.
            Assert.True(events.BlocksKeptOnThisThread() >= 100, $"{events.BlocksKeptOnThisThread()} blocks decoded in parallel");
        }

        /// <summary>
        /// The committed strings stream with 64 KiB blocks: each batch has frames of 30, 11 and 7 independent blocks
        /// (1.9 MB, 700 KB, 400 KB). The wrapper decodes in parallel at least every block the codec path decodes in
        /// parallel (the frames of the minimum parallel length or more); before the change it split only frames of
        /// 8 blocks and 1 MiB or more, and shared the other two whole: 60 blocks against the codec path's 94.
        /// </summary>
        [Theory]
        [InlineData(Input.Memory)]
        [InlineData(Input.Copied)]
        [InlineData(Input.File)]
        public async Task Every_frame_the_codec_path_decodes_block_parallel_is_split(Input input)
        {
            byte[] bytes = Rewrite(Corpus.Committed(Strings));
            long codec;
            using (var events = new FramesEvents())
            {
                List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat: false, new Lz4FastCodecFactory(IpcWrapped.Options(2)), SlabMemoryAllocator.Shared);
                ArrowData.DisposeAll(official);
                codec = events.BlocksKeptOnThisThread();
            }
            using (var events = new FramesEvents())
            {
                List<RecordBatch> ours = await Read(bytes, input, IpcWrapped.Options(2));
                ArrowData.DisposeAll(ours);
                Assert.True(codec > 60, $"the codec path decoded {codec} blocks in parallel");
                Assert.True(events.BlocksKeptOnThisThread() >= codec, $"{events.BlocksKeptOnThisThread()} blocks decoded in parallel, the codec path {codec}");
            }
        }

        /// <summary>
        /// A block whose size field exceeds the block maximum, inside a frame that is split: every input and degree
        /// fails with the sequential path's error, at the size field's offset in the input.
        /// </summary>
        [Theory]
        [InlineData(Input.Memory, 1)]
        [InlineData(Input.Memory, 2)]
        [InlineData(Input.ReadOnlyMemory, 2)]
        [InlineData(Input.Copied, 2)]
        [InlineData(Input.Async, 2)]
        [InlineData(Input.File, 2)]
        public async Task A_bad_block_in_a_split_frame_fails_as_the_sequential_path_does(Input input, int degree)
        {
            byte[] bytes = Rewrite(Corpus.Committed(Strings));
            int field = ThirdBlockOfLargestFrame(bytes);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(field), 0x00FF_FFFF);

            Exception? error = await Record.ExceptionAsync(() => Read(bytes, input, IpcWrapped.Options(degree, 1)));
            Lz4FrameException detail = FrameErrors.Of(error);
            Assert.Equal(field, detail.Offset);
            Exception? sequential = await Record.ExceptionAsync(() => Read(bytes, Input.Copied, IpcWrapped.Options(1)));
            Assert.Equal(sequential!.Message, error!.Message);
        }

        private static async Task AssertSameAsOfficial(string path, Input input, int degree, int minimum)
        {
            byte[] bytes = Rewrite(path);
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat: false, new OfficialFactory());
            List<RecordBatch> ours = await Read(bytes, input, IpcWrapped.Options(degree, minimum));
            try
            {
                Assert.NotEmpty(official);
                ArrowData.AssertSame(official, ours);
            }
            finally
            {
                ArrowData.DisposeAll(ours);
                ArrowData.DisposeAll(official);
            }
        }

        /// <summary>The stream's batches written again by this package's writer with 64 KiB blocks (independent, as it always writes them).</summary>
        private static byte[] Rewrite(string path)
        {
            List<RecordBatch> batches = ArrowData.ReadAll(path, new OfficialFactory());
            byte[] bytes = IpcWriter.Write(batches, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = 65536 }), fileFormat: false);
            ArrowData.DisposeAll(batches);
            return bytes;
        }

        private static async Task<List<RecordBatch>> Read(byte[] bytes, Input input, Lz4FastOptions options)
        {
            string? path = null;
            if (input == Input.File)
            {
                path = Path.Combine(Path.GetTempPath(), "ipc-independent-" + Guid.NewGuid().ToString("N") + ".arrows");
                File.WriteAllBytes(path, bytes);
            }
            Stream source = input switch
            {
                Input.Copied => new BufferedStream(new MemoryStream(bytes, writable: false)),
                Input.File => File.OpenRead(path!),
                _ => new MemoryStream(bytes, writable: false),
            };
            IpcDecompressingStream wrapper = input == Input.ReadOnlyMemory ? new IpcDecompressingStream(bytes, options) : new IpcDecompressingStream(source, options);
            var batches = new List<RecordBatch>();
            using var reader = new ArrowStreamReader(wrapper, SlabMemoryAllocator.Shared);
            try
            {
                while ((input == Input.Async ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                    batches.Add(batch);
            }
            catch
            {
                ArrowData.DisposeAll(batches);
                throw;
            }
            finally
            {
                reader.Dispose();
                if (path is not null)
                    File.Delete(path);
            }
            return batches;
        }

        /// <summary>
        /// The offset of the third block's size field in the longest frame of independent blocks in the stream (frames
        /// found by their magic number and walked block by block to their end mark, so that bytes that only look like
        /// a magic number are passed over).
        /// </summary>
        private static int ThirdBlockOfLargestFrame(byte[] bytes)
        {
            int best = -1;
            int bestBlocks = 0;
            for (int at = 0; at + 7 <= bytes.Length; at++)
            {
                if (BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(at)) != 0x184D2204)
                    continue;
                byte flags = bytes[at + 4];
                if ((flags & 0xC0) != 0x40 || (flags & 0x20) == 0)
                    continue;
                int position = at + 7 + ((flags & 0x08) != 0 ? 8 : 0) + ((flags & 0x01) != 0 ? 4 : 0);
                int checksum = (flags & 0x10) != 0 ? 4 : 0;
                int blocks = 0;
                int third = -1;
                while (position + 4 <= bytes.Length)
                {
                    uint size = BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(position)) & 0x7FFF_FFFF;
                    if (size == 0 || size > 65536)
                        break;
                    if (++blocks == 3)
                        third = position;
                    position += 4 + (int)size + checksum;
                }
                if (position + 4 <= bytes.Length && BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(position)) == 0 && blocks > bestBlocks && third >= 0)
                {
                    best = third;
                    bestBlocks = blocks;
                }
            }
            Assert.True(bestBlocks >= 4, "the rewritten stream has no frame of four or more independent blocks");
            return best;
        }
    }
}
#endif
