using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameStream.CopyTo(Stream, int)"/> and <see cref="Lz4FrameStream.CopyToAsync(Stream, int, CancellationToken)"/>:
    /// the copy grows its buffer to whole blocks, and gives the span decoder's bytes or its exception like any read.
    /// </summary>
    public class FrameStreamCopyToTests
    {
        public static IEnumerable<object[]> Files() => FrameStreams.SuiteFrameFiles().Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(Files))]
        public async Task Every_corpus_frame_copies_as_the_span_decoder_decodes(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            FrameOutcome expected = FrameStreams.Reference(input);
            foreach (Lz4FrameDecoderOptions options in new[] { default, FrameStreamReadAheadTests.Degree2 })
            {
                foreach (int bufferSize in new[] { 1, 4096, 81920 })
                {
                    using (var stream = new Lz4FrameStream(new MemoryStream(input), options))
                        FrameStreams.AssertSame(expected, Copy(stream, async: false, bufferSize), $"CopyTo, buffer {bufferSize}");
                    using (var stream = new Lz4FrameStream(new TrickleStream(input, bufferSize, 70_000), options))
                        FrameStreams.AssertSame(expected, await CopyAsync(stream, bufferSize), $"CopyToAsync, buffer {bufferSize}, trickled input");
                }
            }
        }

        [Fact]
        public async Task A_copy_grows_its_buffer_to_a_whole_block_without_read_ahead()
        {
            // With 4 MiB independent blocks and sequential options the copy's buffer grows to a block after the first
            // read, and the read after it takes exactly what the window holds, so later blocks decode in place: every
            // write after the second is one whole block. With read-ahead the buffer stays as asked (helpers decode into
            // the ring of windows). (CopyToAsync: the netstandard2.0 build overrides only it.)
            byte[] payload = FrameStreamReadAheadTests.CorpusPayload(24 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20));

            var output = new CountingStream();
            using (var stream = new Lz4FrameStream(new MemoryStream(frame), CompressionMode.Decompress))
                await stream.CopyToAsync(output, 81920, CancellationToken.None);
            Assert.True(payload.AsSpan().SequenceEqual(output.ToArray()));
            string writes = string.Join(", ", output.Writes);
            Assert.True(output.Writes[0] <= 128 << 10, writes);
            Assert.Equal((4 << 20) - output.Writes[0], output.Writes[1]);
            Assert.All(output.Writes.Skip(2).Take(output.Writes.Count - 3), w => Assert.Equal(4 << 20, w));
            Assert.Equal(7, output.Writes.Count);   // the first block in two writes, then five whole blocks

            var parallel = new CountingStream();
            using (var stream = new Lz4FrameStream(new MemoryStream(frame), FrameStreamReadAheadTests.Degree2))
                await stream.CopyToAsync(parallel, 81920, CancellationToken.None);
            Assert.True(payload.AsSpan().SequenceEqual(parallel.ToArray()));
            Assert.All(parallel.Writes, w => Assert.True(w <= 128 << 10, string.Join(", ", parallel.Writes)));
        }

        [Fact]
        public async Task Copy_arguments_are_checked_as_Stream_checks_them()
        {
            byte[] frame = Encode(new byte[1000], new Lz4FrameEncoderOptions());
            using var stream = new Lz4FrameStream(new MemoryStream(frame), CompressionMode.Decompress);
            Assert.Throws<ArgumentNullException>(() => stream.CopyTo(null!, 100));
            Assert.Throws<ArgumentOutOfRangeException>(() => stream.CopyTo(new MemoryStream(), 0));
            Assert.Throws<NotSupportedException>(() => stream.CopyTo(new MemoryStream(new byte[10], writable: false), 100));
            var closed = new MemoryStream();
            closed.Dispose();
            Assert.Throws<ObjectDisposedException>(() => stream.CopyTo(closed, 100));
            await Assert.ThrowsAsync<ArgumentNullException>(() => stream.CopyToAsync(null!, 100, CancellationToken.None));
            await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => stream.CopyToAsync(new MemoryStream(), -1, CancellationToken.None));

            using var compressing = new Lz4FrameStream(new MemoryStream(), CompressionMode.Compress);
            Assert.Throws<NotSupportedException>(() => compressing.CopyTo(new MemoryStream(), 100));
            await Assert.ThrowsAsync<NotSupportedException>(() => compressing.CopyToAsync(new MemoryStream(), 100, CancellationToken.None));

            stream.Dispose();
            Assert.Throws<ObjectDisposedException>(() => stream.CopyTo(new MemoryStream(), 100));
        }

        [Fact]
        public async Task An_async_copy_respects_cancellation()
        {
            byte[] payload = TestData.Mixed(4 << 20, 5);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 64 << 10));
            using var cancel = new CancellationTokenSource();
            using var stream = new Lz4FrameStream(new TrickleStream(frame, 3, 4096), CompressionMode.Decompress);
            var output = new CancellingStream(cancel, after: 1 << 20);
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stream.CopyToAsync(output, 81920, cancel.Token));
            Assert.InRange(output.Length, 1 << 20, payload.Length - 1);
        }

        private static FrameOutcome Copy(Stream stream, bool async, int bufferSize)
        {
            var output = new MemoryStream();
            try
            {
                if (async)
                    stream.CopyToAsync(output, bufferSize, CancellationToken.None).GetAwaiter().GetResult();
                else
                    stream.CopyTo(output, bufferSize);
                return new FrameOutcome(output.ToArray(), null);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                return new FrameOutcome(output.ToArray(), e);
            }
        }

        private static Task<FrameOutcome> CopyAsync(Stream stream, int bufferSize) => Task.Run(() => Copy(stream, async: true, bufferSize));

        private static byte[] Encode(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written, options));
            return frame.AsSpan(0, written).ToArray();
        }

        /// <summary>Keeps what is written and the size of every write.</summary>
        private sealed class CountingStream : MemoryStream
        {
            public List<int> Writes { get; } = new();

            public override void Write(byte[] buffer, int offset, int count)
            {
                Writes.Add(count);
                base.Write(buffer, offset, count);
            }

            public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
            {
                Write(buffer, offset, count);
                return Task.CompletedTask;
            }

            public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
            {
                Write(buffer.ToArray(), 0, buffer.Length);
                return ValueTask.CompletedTask;
            }
        }

        /// <summary>Cancels <paramref name="cancel"/> once <paramref name="after"/> bytes have been written.</summary>
        private sealed class CancellingStream(CancellationTokenSource cancel, int after) : MemoryStream
        {
            public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
                WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

            public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Write(buffer.Span);
                if (Length >= after)
                    cancel.Cancel();
                return ValueTask.CompletedTask;
            }
        }
    }
}
