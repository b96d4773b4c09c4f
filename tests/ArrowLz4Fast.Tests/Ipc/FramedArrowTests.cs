using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FramedArrow.CreateStreamReader"/>: IPC streams wrapped whole in LZ4 frames by the lz4 CLI and by
    /// K4os read to the batches Apache.Arrow's official reader reads from the unwrapped stream.
    /// </summary>
    public class FramedArrowTests
    {
        public static IEnumerable<object[]> Streams()
        {
            var files = Corpus.CommittedIpcFiles().Where(f => f.EndsWith(".arrows", StringComparison.Ordinal) && !f.Contains("zstd", StringComparison.Ordinal)).Select(Corpus.Committed).ToList();
            if (Corpus.SharedAvailable)
                files.Add(Corpus.Shared("ipc/pyarrow/numeric.arrows"));
            return files.Select(f => new object[] { f });
        }

        public static readonly string[] CliFlags = { "-B7 -BI", "-B4 -BD", "-B7 -BI --content-size", "-B4 -BD --no-frame-crc", "-B6 -BI -BX" };

        [Lz4CliTheory]
        [MemberData(nameof(Streams))]
        public void A_body_compressed_stream_in_a_frame_reads_as_the_official_reader_reads_it_unwrapped(string file)
        {
            byte[] ipc = File.ReadAllBytes(file);
            List<RecordBatch> expected = ArrowData.ReadAll(ipc, fileFormat: false, new CompressionCodecFactory());
            try
            {
                foreach (string flags in CliFlags)
                    AssertReads(expected, ReferenceCli.Compress(ipc, flags), flags, sameBuffers: true);
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        [Lz4CliTheory]
        [MemberData(nameof(Streams))]
        public void An_uncompressed_stream_in_a_frame_reads_as_the_official_reader_reads_it_unwrapped(string file)
        {
            {
                byte[] ipc = Uncompressed(file);
                List<RecordBatch> expected = ArrowData.ReadAll(ipc, fileFormat: false, new CompressionCodecFactory());
                try
                {
                    foreach (string flags in CliFlags)
                        AssertReads(expected, ReferenceCli.Compress(ipc, flags), flags, sameBuffers: true);
                    var k4os = new MemoryStream();
                    using (var writer = LZ4Stream.Encode(k4os, new LZ4EncoderSettings { BlockSize = 4 << 20, ChainBlocks = false }, leaveOpen: true))
                        writer.Write(ipc);
                    AssertReads(expected, k4os.ToArray(), "K4os LZ4Stream", sameBuffers: true);
                }
                finally
                {
                    ArrowData.DisposeAll(expected);
                }
            }
        }

        /// <summary>The frame decoder's message as the framed reader words it: the offset is in the compressed input.</summary>
        private static string InCompressedInput(Exception frameError)
        {
            string head = $"byte offset {FrameErrors.Of(frameError).Offset}:";
            Assert.Contains(head, frameError.Message, StringComparison.Ordinal);
            return frameError.Message.Replace(head, head.TrimEnd(':') + " of the compressed input (the LZ4 frame around the IPC stream):");
        }

        [Fact]
        public void Corrupt_outer_data_surfaces_as_the_frame_decoders_exception()
        {
            byte[] ipc = Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            byte[] frame = TestData.Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 64 * 1024, contentChecksum: true));
            frame[frame.Length / 2] ^= 0x55;
            FrameOutcome reference = FrameStreams.Reference(frame);
            Assert.NotNull(reference.Error);
            Exception? error = Record.Exception(() =>
            {
                using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(frame));
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
            });
            Assert.Equal(InCompressedInput(reference.Error!), FrameErrors.Of(error).Message);
        }

        /// <summary>
        /// Arrow stops reading at the IPC end-of-stream marker, before the frame's end mark and content checksum. The
        /// reader still checks them: a wrong checksum fails the read that reaches the marker, wherever the inner stream's
        /// reads happen to end.
        /// </summary>
        [Theory]
        [InlineData(false, 7)]
        [InlineData(true, 7)]
        [InlineData(false, 1 << 20)]
        [InlineData(true, 1 << 20)]
        public async System.Threading.Tasks.Task A_wrong_content_checksum_after_the_last_batch_fails_the_read(bool async, int maxChunk)
        {
            byte[] ipc = Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            byte[] frame = TestData.Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 64 * 1024, contentChecksum: true));
            frame[frame.Length - 1] ^= 0x01;
            FrameOutcome reference = FrameStreams.Reference(frame);
            Assert.NotNull(reference.Error);

            int batches = 0;
            using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new TrickleStream(frame, seed: maxChunk, maxChunk));
            Exception? error = await Record.ExceptionAsync(async () =>
            {
                while ((async ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                {
                    batches++;
                    batch.Dispose();
                }
            });
            Assert.Equal(InCompressedInput(reference.Error!), FrameErrors.Of(error).Message);
            Assert.Equal(ArrowData.ReadAll(ipc, fileFormat: false, new CompressionCodecFactory()).Count, batches);
        }

        [Fact]
        public void The_reader_disposes_the_inner_stream_unless_leaveOpen()
        {
            byte[] frame = TestData.Encode(Uncompressed(Corpus.Committed("ipc/pyarrow/empty.arrows")), default);
            var inner = new TrickleStream(frame, 1, 100);
            using (ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(inner, leaveOpen: true))
                Assert.NotNull(reader.Schema);
            Assert.False(inner.Disposed);
            using (ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(inner))
            {
            }
            Assert.True(inner.Disposed);
        }

        private static void AssertReads(List<RecordBatch> expected, byte[] framed, string what, bool sameBuffers)
        {
            var actual = new List<RecordBatch>();
            try
            {
                using (ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new TrickleStream(framed, framed.Length, 1 << 20)))
                {
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                        actual.Add(batch);
                }
                Assert.True(expected.Count == actual.Count, $"{what}: {actual.Count} batches, expected {expected.Count}");
                if (sameBuffers)
                    ArrowData.AssertSame(expected, actual);
                else
                    ArrowData.AssertSameValues(expected, actual);
            }
            finally
            {
                ArrowData.DisposeAll(actual);
            }
        }

        /// <summary>The IPC stream re-encoded without body compression, as a producer that compresses outside would write it.</summary>
        internal static byte[] Uncompressed(string file)
        {
            using var input = new ArrowStreamReader(new MemoryStream(File.ReadAllBytes(file)), new CompressionCodecFactory());
            var batches = new List<RecordBatch>();
            while (input.ReadNextRecordBatch() is RecordBatch batch)
                batches.Add(batch);
            try
            {
                using var output = new MemoryStream();
                using (var writer = new ArrowStreamWriter(output, input.Schema, leaveOpen: true))
                {
                    writer.WriteStart();
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
    }
}
