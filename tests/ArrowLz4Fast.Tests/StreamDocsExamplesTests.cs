using System;
using System.Buffers;
using System.IO;
using System.IO.Compression;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The examples of docs/streams.md, as written there, run on real data.</summary>
    public class StreamDocsExamplesTests
    {
        [Fact]
        public void The_decoding_stream_example()
        {
            byte[] payload = TestData.Mixed(1 << 20, 4);
            string path = Path.Combine(Path.GetTempPath(), $"streams-doc-{System.Environment.ProcessId}.lz4");
            File.WriteAllBytes(path, TestData.Encode(payload, new Lz4FrameEncoderOptions(contentChecksum: true)));
            var destination = new MemoryStream();
            try
            {
                // docs/streams.md: the decoding stream
                using (var lz4 = new Lz4FrameStream(File.OpenRead(path), CompressionMode.Decompress))
                    lz4.CopyTo(destination);
            }
            finally
            {
                File.Delete(path);
            }
            Assert.Equal(payload, destination.ToArray());
        }

        [Fact]
        public void The_one_shot_example()
        {
            byte[] payload = TestData.Mixed(1 << 20, 5);
            byte[] frameBytes = TestData.Encode(payload, default);
            long sum = 0;

            void Process(ReadOnlySpan<byte> content)
            {
                foreach (byte b in content)
                    sum += b;
            }

            // docs/streams.md: one-shot decode of unknown size
            using (IMemoryOwner<byte> decoded = Lz4FrameDecoder.DecodeToOwner(frameBytes))
            {
                Process(decoded.Memory.Span);
            }

            long expected = 0;
            foreach (byte b in payload)
                expected += b;
            Assert.Equal(expected, sum);
        }

        [Fact]
        public void The_arrow_example()
        {
            byte[] ipc = FramedArrowTests.Uncompressed(Corpus.Committed("ipc/pyarrow/tiny_batches.arrows"));
            Stream responseStream = new MemoryStream(TestData.Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 4 << 20)));
            long rows = 0;

            // docs/streams.md: the CloudFetch shape
            using (ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(responseStream))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    using (batch)
                        rows += batch.Length;
                }
            }

            Assert.Equal(10_000, rows);
        }
    }
}
