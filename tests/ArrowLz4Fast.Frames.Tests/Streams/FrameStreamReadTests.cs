using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameStream"/> decoding: every corpus frame, read in seeded random sizes, sync and async, over
    /// inner streams that hand out any number of bytes, gives the span decoder's bytes or its exception.
    /// </summary>
    public class FrameStreamReadTests
    {
        public static IEnumerable<object[]> Files() => FrameStreams.SuiteFrameFiles().Select(f => new object[] { f });

        [Fact]
        public void The_corpus_frames_are_there()
        {
            Assert.True(FrameStreams.AllFrameFiles().Count() >= 130, "expected the committed frames, malformed and liblz4-agreement folders");
        }

        [Theory]
        [MemberData(nameof(Files))]
        public void Every_corpus_frame_reads_as_the_span_decoder_decodes(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            FrameOutcome expected = FrameStreams.Reference(input);
            int seed = StableSeed(file);

            using (var stream = new Lz4FrameStream(new MemoryStream(input), CompressionMode.Decompress))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed, async: false), "sync");
            using (var stream = new Lz4FrameStream(new TrickleStream(input, seed, 70_000), CompressionMode.Decompress))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed + 1, async: true), "async, trickled input");
            using (var stream = new Lz4FrameStream(new TrickleStream(input, seed, 17), new Lz4FrameDecoderOptions()))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed + 2, async: false, maxRead: 1 << 20), "sync, 1-17 byte input reads");
        }

        [Theory]
        [MemberData(nameof(Files))]
        public void Skipping_checksums_reads_as_the_span_decoder_skips_them(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            var options = new Lz4FrameDecoderOptions(verifyChecksums: false);
            FrameOutcome expected = FrameStreams.Reference(input, options);
            using var stream = new Lz4FrameStream(new MemoryStream(input), options);
            FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, StableSeed(file) + 3, async: false), "checksums off");
        }

        public static IEnumerable<object[]> SmallValidFrames() =>
            Corpus.DataFiles("frames")
                .Select(Corpus.Committed)
                .Where(f => new FileInfo(f).Length is > 8 and < 1500 && Corpus.Sidecar(f).GetProperty("valid").GetBoolean())
                .Take(40)
                .Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(SmallValidFrames))]
        public void Every_prefix_of_a_frame_throws_as_the_span_decoder_does(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            for (int length = 0; length < input.Length; length++)
            {
                byte[] prefix = input.AsSpan(0, length).ToArray();
                FrameOutcome expected = FrameStreams.Reference(prefix);
                Assert.NotNull(expected.Error);
                using var stream = new Lz4FrameStream(new TrickleStream(prefix, length, 9), CompressionMode.Decompress);
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, length, async: (length & 1) == 0), $"prefix of {length} bytes");
            }
        }

        public static IEnumerable<object[]> Crafted()
        {
            byte[] frame = TestData.Encode(TestData.Mixed(200_000, 8), new Lz4FrameEncoderOptions(contentChecksum: true));
            byte[] junk = TestData.Mixed(300_000, 9);
            yield return new object[] { "empty", Array.Empty<byte>() };
            yield return new object[] { "three bytes", new byte[] { 4, 0x22, 0x4D } };
            yield return new object[] { "a huge truncated skippable frame", new byte[] { 0x50, 0x2A, 0x4D, 0x18, 0xFE, 0xFF, 0xFF, 0xFF, 1, 2, 3 } };
            yield return new object[] { "a skippable frame, then a frame", new byte[] { 0x5F, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3 }.Concat(frame).ToArray() };
            yield return new object[] { "300 KB of junk after a frame (more than the input buffer)", frame.Concat(junk).ToArray() };
            yield return new object[] { "3 bytes after a frame", frame.Concat(new byte[] { 1, 2, 3 }).ToArray() };
            yield return new object[] { "the legacy magic after a frame", frame.Concat(new byte[] { 0x02, 0x21, 0x4C, 0x18, 0, 0 }).ToArray() };
            yield return new object[] { "two frames", frame.Concat(frame).ToArray() };
        }

        [Theory]
        [MemberData(nameof(Crafted))]
        public void Crafted_inputs_read_as_the_span_decoder_decodes_them(string what, byte[] input)
        {
            FrameOutcome expected = FrameStreams.Reference(input);
            for (int seed = 0; seed < 4; seed++)
            {
                using var stream = new Lz4FrameStream(new TrickleStream(input, seed, seed == 0 ? 7 : 100_000), CompressionMode.Decompress);
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed, async: (seed & 1) == 1), $"{what}, seed {seed}");
            }
        }

        [Fact]
        public void Frames_with_every_block_kind_and_size_read_in_any_sizes()
        {
            byte[] payload = TestData.Mixed(9 << 20, seed: 26);
            foreach (bool chained in new[] { false, true })
            {
                foreach (int blockSize in new[] { (64 << 10), (256 << 10), (1 << 20), (4 << 20) })
                {
                    var settings = new LZ4EncoderSettings { ChainBlocks = chained, BlockSize = blockSize, ContentChecksum = true, BlockChecksum = blockSize == (256 << 10) };
                    byte[] frame = TestData.K4osFrame(payload, settings, contentSize: blockSize == (1 << 20));
                    for (int seed = 0; seed < 3; seed++)
                    {
                        using var stream = new Lz4FrameStream(new TrickleStream(frame, seed, 1 << 20), CompressionMode.Decompress);
                        FrameOutcome actual = FrameStreams.ReadAll(stream, seed, async: seed == 1);
                        Assert.Null(actual.Error);
                        Assert.True(payload.AsSpan().SequenceEqual(actual.Output), $"chained {chained}, {blockSize}-byte blocks, seed {seed}");
                    }
                }
            }
        }

        [Fact]
        public void What_K4os_LZ4Stream_writes_reads_back()
        {
            byte[] payload = TestData.Mixed(3 << 20, seed: 7);
            foreach (bool chained in new[] { false, true })
            {
                var encoded = new MemoryStream();
                using (var writer = LZ4Stream.Encode(encoded, new LZ4EncoderSettings { ChainBlocks = chained, ContentChecksum = true }, leaveOpen: true))
                {
                    for (int i = 0; i < payload.Length; i += 10_007)
                        writer.Write(payload, i, Math.Min(10_007, payload.Length - i));
                }
                encoded.Position = 0;
                using var stream = new Lz4FrameStream(encoded, CompressionMode.Decompress);
                var output = new MemoryStream();
                stream.CopyTo(output);
                Assert.True(payload.AsSpan().SequenceEqual(output.ToArray()), $"chained {chained}");
            }
        }

        [Lz4CliFact]
        public void What_the_lz4_CLI_writes_reads_back()
        {
            byte[] payload = TestData.Mixed(6 << 20, seed: 11);
            foreach (string flags in new[] { "-B7 -BI", "-B4 -BD", "-B5 -BD --content-size", "-B6 -BI --no-frame-crc -BX" })
            {
                byte[] frame = ReferenceCli.Compress(payload, flags);
                using var stream = new Lz4FrameStream(new TrickleStream(frame, 5, 100_000), CompressionMode.Decompress);
                FrameOutcome actual = FrameStreams.ReadAll(stream, 5, async: false);
                Assert.Null(actual.Error);
                Assert.True(payload.AsSpan().SequenceEqual(actual.Output), flags);
            }
        }

        [Fact]
        public void A_block_that_fits_is_decoded_straight_into_the_callers_buffer()
        {
            // Reads of exactly one block each: every byte must come out right whichever path the block took.
            byte[] payload = TestData.Mixed(1 << 20, seed: 5);
            byte[] frame = TestData.Encode(payload, new Lz4FrameEncoderOptions(blockSize: 64 * 1024, blockChecksum: true));
            using var stream = new Lz4FrameStream(new MemoryStream(frame), CompressionMode.Decompress);
            var output = new byte[payload.Length + 64 * 1024];
            int total = 0;
            int n;
            while ((n = stream.Read(output, total, 64 * 1024)) > 0)
            {
                Assert.Equal(64 * 1024, n);
                total += n;
            }
            Assert.Equal(payload.Length, total);
            Assert.True(payload.AsSpan().SequenceEqual(output.AsSpan(0, total)));
        }

        [Fact]
        public async Task A_cancelled_read_is_cancelled()
        {
            byte[] frame = TestData.Encode(TestData.Mixed(100_000, 1), default);
            using var stream = new Lz4FrameStream(new StallingStream(frame, stallAfter: 20), CompressionMode.Decompress);
            var buffer = new byte[1 << 20];
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stream.ReadAsync(buffer, new CancellationToken(canceled: true)).AsTask());
            using var cancel = new CancellationTokenSource();
            Task<int> read = stream.ReadAsync(buffer, cancel.Token).AsTask();
            Assert.False(read.IsCompleted);
            cancel.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read);
        }

        [Fact]
        public void Dispose_closes_the_inner_stream_unless_leaveOpen()
        {
            byte[] frame = TestData.Encode(TestData.Mixed(100_000, 1), default);
            var closed = new TrickleStream(frame, 1, 1000);
            var stream = new Lz4FrameStream(closed, CompressionMode.Decompress);
            Assert.True(stream.CanRead);
            Assert.False(stream.CanWrite);
            Assert.Same(closed, stream.BaseStream);
            stream.Dispose();
            Assert.True(closed.Disposed);
            Assert.False(stream.CanRead);
            Assert.Throws<ObjectDisposedException>(() => stream.Read(new byte[10], 0, 10));
            stream.Dispose();

            var open = new TrickleStream(frame, 1, 1000);
            using (var kept = new Lz4FrameStream(open, new Lz4FrameDecoderOptions(), leaveOpen: true))
                Assert.True(kept.Read(new byte[10], 0, 10) > 0);
            Assert.False(open.Disposed);
            Assert.Throws<NotSupportedException>(() => new Lz4FrameStream(open, CompressionMode.Decompress, leaveOpen: true).Write(new byte[1], 0, 1));
        }

        [Fact]
        public void After_an_error_every_read_throws_it_again()
        {
            byte[] frame = TestData.Encode(TestData.Mixed(100_000, 1), new Lz4FrameEncoderOptions(contentChecksum: true));
            frame[^2] ^= 1;
            using var stream = new Lz4FrameStream(new MemoryStream(frame), CompressionMode.Decompress);
            var buffer = new byte[1 << 20];
            Lz4FrameException first = FrameErrors.Throws(() => stream.Read(buffer, 0, buffer.Length));
            Lz4FrameException again = FrameErrors.Throws(() => stream.Read(buffer, 0, buffer.Length));
            Assert.Equal(first.Offset, again.Offset);
        }

        private static int StableSeed(string file)
        {
            int hash = 17;
            foreach (char c in Path.GetFileName(file))
                hash = unchecked(hash * 31 + c);
            return hash & 0x7FFFFFFF;
        }

        /// <summary>Hands out its first bytes, then waits for the caller's cancellation.</summary>
        private sealed class StallingStream : MemoryStream
        {
            private readonly int _stallAfter;

            public StallingStream(byte[] data, int stallAfter)
                : base(data) => _stallAfter = stallAfter;

            public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
            {
                if (Position >= _stallAfter)
                    await Task.Delay(Timeout.Infinite, cancellationToken);
                return await base.ReadAsync(buffer.Slice(0, (int)Math.Min(buffer.Length, _stallAfter - Position)), cancellationToken);
            }

            // The netstandard2.0 build of the stream reads its inner stream through this overload.
            public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
                ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
        }
    }
}
