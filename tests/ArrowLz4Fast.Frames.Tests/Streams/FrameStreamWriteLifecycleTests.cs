using System;
using System.IO;
using System.IO.Compression;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameStream"/> in compress mode: Dispose ends the frame once, leaveOpen, what throws after
    /// Dispose, cancellation, a failing inner stream, the content-size option, and allocation per stream.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class FrameStreamWriteLifecycleTests
    {
        private const int MiB = 1024 * 1024;

        [Fact]
        public void Dispose_ends_the_frame_once()
        {
            byte[] content = TestData.Mixed(700_000, 40);
            var options = new Lz4FrameEncoderOptions(64 * 1024, contentChecksum: true);
            var inner = new MemoryStream();
            var stream = new Lz4FrameStream(inner, options, leaveOpen: true);
            stream.Write(content);
            stream.Dispose();
            byte[] frame = inner.ToArray();
            Assert.Equal(FrameStreamWriteTests.SpanEncode(content, options), frame);
            stream.Dispose();
            stream.Close();
            Assert.Equal(frame, inner.ToArray());
        }

        [Fact]
        public async Task DisposeAsync_ends_the_frame_once()
        {
            byte[] content = TestData.Mixed(700_000, 41);
            var options = new Lz4FrameEncoderOptions(256 * 1024, contentChecksum: true, blockChecksum: true);
            var inner = new MemoryStream();
            var stream = new Lz4FrameStream(inner, options, leaveOpen: true);
            await stream.WriteAsync(content.AsMemory(), CancellationToken.None);
            await stream.DisposeAsync();
            byte[] frame = inner.ToArray();
            Assert.Equal(FrameStreamWriteTests.SpanEncode(content, options), frame);
            stream.Dispose();
            await stream.DisposeAsync();
            Assert.Equal(frame, inner.ToArray());
        }

        [Fact]
        public void An_empty_stream_writes_the_span_encoders_empty_frame()
        {
            var inner = new MemoryStream();
            new Lz4FrameStream(inner, CompressionMode.Compress, leaveOpen: true).Dispose();
            Assert.Equal(FrameStreamWriteTests.SpanEncode(ReadOnlySpan<byte>.Empty, new Lz4FrameEncoderOptions(contentChecksum: true)), inner.ToArray());
        }

        [Fact]
        public void CompressionMode_Compress_uses_the_default_options_with_a_content_checksum()
        {
            byte[] content = TestData.Mixed(1_000_000, 42);
            var inner = new MemoryStream();
            using (var stream = new Lz4FrameStream(inner, CompressionMode.Compress, leaveOpen: true))
            {
                Assert.True(stream.CanWrite);
                Assert.False(stream.CanRead);
                Assert.False(stream.CanSeek);
                stream.Write(content, 0, content.Length);
            }
            // The lz4 command line's frame: the defaults plus a content checksum, so that corruption does not decode silently.
            Assert.Equal(FrameStreamWriteTests.SpanEncode(content, new Lz4FrameEncoderOptions(contentChecksum: true)), inner.ToArray());
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void LeaveOpen_is_honoured(bool leaveOpen)
        {
            var inner = new MemoryStream();
            using (var stream = new Lz4FrameStream(inner, new Lz4FrameEncoderOptions(), leaveOpen))
                stream.WriteByte(1);
            Assert.Equal(leaveOpen, inner.CanWrite);
            var defaultInner = new MemoryStream();
            new Lz4FrameStream(defaultInner, CompressionMode.Compress).Dispose();
            Assert.False(defaultInner.CanWrite);
        }

        [Fact]
        public async Task Writing_or_flushing_after_Dispose_throws_ObjectDisposedException()
        {
            var stream = new Lz4FrameStream(new MemoryStream(), CompressionMode.Compress);
            stream.Dispose();
            Assert.False(stream.CanWrite);
            Assert.Throws<ObjectDisposedException>(() => stream.Write(new byte[1], 0, 1));
            Assert.Throws<ObjectDisposedException>(() => stream.Write(new byte[1].AsSpan()));
            Assert.Throws<ObjectDisposedException>(() => stream.Flush());
            await Assert.ThrowsAsync<ObjectDisposedException>(() => stream.WriteAsync(new byte[1].AsMemory(), CancellationToken.None).AsTask());
            await Assert.ThrowsAsync<ObjectDisposedException>(() => stream.FlushAsync());
        }

        [Fact]
        public void A_compressing_stream_cannot_be_read()
        {
            using var stream = new Lz4FrameStream(new MemoryStream(), CompressionMode.Compress);
            Assert.Throws<NotSupportedException>(() => stream.Read(new byte[1], 0, 1));
        }

        [Fact]
        public void The_content_size_option_is_refused_at_construction_and_the_inner_stream_stays_open()
        {
            var inner = new MemoryStream();
            var error = Assert.Throws<NotSupportedException>(() => new Lz4FrameStream(inner, new Lz4FrameEncoderOptions(contentSize: true)));
            Assert.Contains("content size", error.Message, StringComparison.Ordinal);
            Assert.True(inner.CanWrite);
            Assert.Equal(0, inner.Length);
        }

        [Fact]
        public async Task A_write_cancelled_before_it_starts_leaves_the_frame_as_it_was()
        {
            byte[] content = TestData.Mixed(600_000, 43);
            var options = new Lz4FrameEncoderOptions(64 * 1024, contentChecksum: true);
            var inner = new MemoryStream();
            await using (var stream = new Lz4FrameStream(inner, options, leaveOpen: true))
            {
                await stream.WriteAsync(content.AsMemory(0, 100_000), CancellationToken.None);
                using var cancelled = new CancellationTokenSource();
                cancelled.Cancel();
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stream.WriteAsync(content.AsMemory(100_000), cancelled.Token).AsTask());
                await stream.WriteAsync(content.AsMemory(100_000), CancellationToken.None);
            }
            Assert.Equal(FrameStreamWriteTests.SpanEncode(content, options), inner.ToArray());
        }

        [Fact]
        public void A_failed_inner_write_stops_the_stream_and_Dispose_writes_nothing_more()
        {
            var inner = new FailingStream(failAfter: 1);
            var stream = new Lz4FrameStream(inner, new Lz4FrameEncoderOptions(64 * 1024));
            byte[] content = TestData.Mixed(400_000, 44);
            Assert.Throws<IOException>(() => stream.Write(content, 0, content.Length));
            long written = inner.Length;
            Assert.Throws<InvalidOperationException>(() => stream.Write(content, 0, 10));
            Assert.Throws<InvalidOperationException>(() => stream.Flush());
            stream.Dispose();
            Assert.True(inner.Disposed);
            Assert.Equal(written, inner.ToArray().Length);
        }

        [Theory]
        [InlineData(64 * 1024, 81920, false)]
        [InlineData(64 * 1024, 81920, true)]
        [InlineData(4 * MiB, 81920, false)]
        [InlineData(4 * MiB, 81920, true)]
        [InlineData(4 * MiB, 5 * MiB, false)]
        [InlineData(256 * 1024, 1000, true)]
        public void A_stream_allocates_a_small_constant_whatever_the_number_of_blocks(int blockSize, int writeSize, bool async)
        {
            // Sequential, so that every byte the stream allocates is on this thread; after a warm-up the pooled
            // blocks come back from the pool (no large-object-heap allocation per stream with 4 MiB blocks).
            var options = new Lz4FrameEncoderOptions(blockSize, contentChecksum: true, blockChecksum: true);
            byte[] content = TestData.Mixed(12 * Math.Max(blockSize, writeSize) + 12345, 45);
            var inner = new MemoryStream(content.Length + MiB);
            int fewBlocks = 2 * blockSize + 100;
            for (int i = 0; i < 3; i++)
            {
                Encode(content.Length);
                Encode(fewBlocks);
            }
            // The least of a few streams: a one-off allocation of the runtime's own on this thread (seen once,
            // 7.7 KB) is not the stream's; an allocation per block would be in every one.
            long many = long.MaxValue, few = long.MaxValue;
            for (int i = 0; i < 3; i++)
            {
                many = Math.Min(many, Encode(content.Length));
                few = Math.Min(few, Encode(fewBlocks));
            }
            Assert.True(many <= 1024 && few <= 1024 && many == few, $"{few} B for 2 blocks, {many} B for {content.Length / blockSize} blocks");

            long Encode(int length)
            {
                inner.SetLength(0);
                long before = GC.GetAllocatedBytesForCurrentThread();
                var stream = new Lz4FrameStream(inner, options, leaveOpen: true);
                for (int offset = 0; offset < length; offset += writeSize)
                {
                    int count = Math.Min(writeSize, length - offset);
                    if (async)
                    {
                        // A MemoryStream completes every write synchronously: the ValueTask path allocates nothing.
                        ValueTask pending = stream.WriteAsync(content.AsMemory(offset, count), CancellationToken.None);
                        Assert.True(pending.IsCompletedSuccessfully);
                    }
                    else
                    {
                        stream.Write(content.AsSpan(offset, count));
                    }
                }
                stream.Dispose();
                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                Assert.Equal(FrameStreamWriteTests.SpanEncode(content.AsSpan(0, length), options).Length, inner.Length);
                return allocated;
            }
        }

        [Fact]
        public void The_documented_example_writes_a_file_lz4_reads()
        {
            string directory = Path.Combine(Path.GetTempPath(), "arrowlz4fast-streams-encode-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(directory);
            try
            {
                string inputPath = Path.Combine(directory, "strings.arrows");
                string outputPath = inputPath + ".lz4";
                File.Copy(Corpus.Committed("ipc/pyarrow/strings.arrows"), inputPath);

                // docs/streams-encode.md, "Writing a frame": the same code.
                using (FileStream source = File.OpenRead(inputPath))
                using (FileStream target = File.Create(outputPath))
                using (var lz4 = new Lz4FrameStream(target, new Lz4FrameEncoderOptions(blockSize: 4 * 1024 * 1024, contentChecksum: true)))
                {
                    source.CopyTo(lz4);
                }

                byte[] frame = File.ReadAllBytes(outputPath);
                byte[] content = File.ReadAllBytes(inputPath);
                Assert.Equal(FrameStreamWriteTests.SpanEncode(content, new Lz4FrameEncoderOptions(blockSize: 4 * 1024 * 1024, contentChecksum: true)), frame);
                if (ReferenceCli.Available)
                    Assert.Equal(content, ReferenceCli.Decompress(frame));
            }
            finally
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        private sealed class FailingStream : MemoryStream
        {
            private int _writesLeft;

            public FailingStream(int failAfter) => _writesLeft = failAfter;

            public bool Disposed { get; private set; }

            public override void Write(byte[] buffer, int offset, int count)
            {
                if (_writesLeft-- <= 0)
                    throw new IOException("the disk is full");
                base.Write(buffer, offset, count);
            }

            public override void Write(ReadOnlySpan<byte> buffer)
            {
                if (_writesLeft-- <= 0)
                    throw new IOException("the disk is full");
                base.Write(buffer);
            }

            protected override void Dispose(bool disposing)
            {
                Disposed = true;
                base.Dispose(disposing);
            }
        }
    }
}
