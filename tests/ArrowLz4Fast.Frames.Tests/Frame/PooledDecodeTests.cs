using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary><see cref="Lz4FrameDecoder.DecodeToOwner"/> and <see cref="Lz4FrameDecoder.DecodeToWriter"/>: frames of unknown decoded size, in one call.</summary>
    public class PooledDecodeTests
    {
        public static IEnumerable<object[]> Files() => FrameStreamReadTests.Files();

        [Theory]
        [MemberData(nameof(Files))]
        public void Every_corpus_frame_decodes_as_the_span_decoder_decodes_it(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            FrameOutcome expected = FrameStreams.Reference(input);

            FrameOutcome owned;
            try
            {
                using IMemoryOwner<byte> owner = Lz4FrameDecoder.DecodeToOwner(input);
                owned = new FrameOutcome(owner.Memory.ToArray(), null);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                owned = new FrameOutcome(Array.Empty<byte>(), e);
            }
            AssertSame(expected, owned, "DecodeToOwner");

            var writer = new ArrayBufferWriter<byte>();
            writer.Write(new byte[] { 1, 2, 3 });
            FrameOutcome written;
            try
            {
                int n = Lz4FrameDecoder.DecodeToWriter(input, writer);
                Assert.Equal(n + 3, writer.WrittenCount);
                written = new FrameOutcome(writer.WrittenSpan.Slice(3).ToArray(), null);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                Assert.Equal(3, writer.WrittenCount);
                written = new FrameOutcome(Array.Empty<byte>(), e);
            }
            AssertSame(expected, written, "DecodeToWriter");
        }

        private static void AssertSame(FrameOutcome expected, FrameOutcome actual, string what)
        {
            if (expected.Error is NotSupportedException)
            {
                Assert.IsType<NotSupportedException>(actual.Error);
                return;
            }
            FrameStreams.AssertSame(expected, actual, what);
        }

        [Fact]
        public void A_content_size_smaller_than_the_blocks_is_reported_as_the_span_decoder_reports_it()
        {
            byte[] payload = TestData.Mixed(300_000, 9);
            byte[] frame = TestData.K4osFrame(payload, new LZ4EncoderSettings { BlockSize = 64 * 1024 }, contentSize: true);
            // Declare 100,000 bytes fewer (the header checksum recomputed), so sizing from the header is too small.
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(frame.AsSpan(6), (ulong)(payload.Length - 100_000));
            frame[14] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(frame.AsSpan(4, 10)) >> 8);
            FrameOutcome expected = FrameStreams.Reference(frame);
            Assert.NotNull(expected.Error);
            Exception? error = Record.Exception(() => Lz4FrameDecoder.DecodeToOwner(frame).Dispose());
            Assert.Equal(expected.Error!.Message, FrameErrors.Of(error).Message);
        }

        [Fact]
        public void Memory_is_exactly_the_decoded_length_and_is_returned_once()
        {
            byte[] payload = TestData.Mixed(5 << 20, 2);
            byte[] frame = TestData.Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20, contentSize: true));
            IMemoryOwner<byte> owner = Lz4FrameDecoder.DecodeToOwner(frame);
            Assert.Equal(payload.Length, owner.Memory.Length);
            Assert.True(payload.AsSpan().SequenceEqual(owner.Memory.Span));
            owner.Dispose();
            owner.Dispose();
            Assert.Throws<ObjectDisposedException>(() => owner.Memory);
        }
    }
}
