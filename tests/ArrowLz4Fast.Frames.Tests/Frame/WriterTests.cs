using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;
using K4os.Hash.xxHash;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Frames written by <see cref="Lz4FrameEncoder"/>: readable by K4os, by our decoder and by the reference lz4 CLI, and laid out per spec.</summary>
    public class WriterTests
    {
        private static readonly int[] BlockSizes = { 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024 };

        public static IEnumerable<object[]> Cases()
        {
            foreach (int blockSize in BlockSizes)
            foreach (string shape in new[] { "empty", "one", "block-1", "block", "block+1", "mixed5m", "random1m" })
            foreach ((bool content, bool block) in new[] { (false, false), (true, false), (true, true) })
                yield return new object[] { blockSize, shape, content, block };
        }

        private static byte[] Payload(string shape, int blockSize) => shape switch
        {
            "empty" => Array.Empty<byte>(),
            "one" => new byte[] { 0x41 },
            "block-1" => TestData.Mixed(blockSize - 1, blockSize),
            "block" => TestData.Mixed(blockSize, blockSize),
            "block+1" => TestData.Mixed(blockSize + 1, blockSize),
            "mixed5m" => TestData.Mixed(5 << 20, 5),
            _ => Random(1 << 20),
        };

        private static byte[] Random(int length)
        {
            var data = new byte[length];
            new Random(length).NextBytes(data);
            return data;
        }

        [Theory]
        [MemberData(nameof(Cases))]
        public void Written_frames_decode_with_K4os_and_with_ours(int blockSize, string shape, bool contentChecksum, bool blockChecksum)
        {
            byte[] payload = Payload(shape, blockSize);
            var options = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum, blockChecksum);
            byte[] frame = Encode(payload, options);

            AssertFollowsSpec(frame, payload, options);

            var k4os = new byte[payload.Length];
            using (var decoder = LZ4Frame.Decode(frame.AsMemory()))
                Assert.Equal(payload.Length, decoder.ReadManyBytes(k4os));
            Assert.Equal(payload, k4os);

            var ours = new byte[payload.Length];
            Assert.True(Lz4FrameDecoder.TryDecode(frame, ours, out int decoded));
            Assert.Equal(payload.Length, decoded);
            Assert.Equal(payload, ours);
        }

        [Lz4CliTheory]
        [MemberData(nameof(Cases))]
        public void Written_frames_decode_with_the_reference_lz4_cli(int blockSize, string shape, bool contentChecksum, bool blockChecksum)
        {
            byte[] payload = Payload(shape, blockSize);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum, blockChecksum));

            Assert.Equal(payload, ReferenceCli.Decompress(frame));
        }

        public static IEnumerable<object[]> ContentSizeCases()
        {
            foreach (int length in new[] { 0, 1, 65535, 65537, 300_000 })
                yield return new object[] { length };
        }

        [Theory]
        [MemberData(nameof(ContentSizeCases))]
        public void Content_size_frames_follow_the_spec_and_our_decoder_checks_the_field(int length)
        {
            byte[] payload = TestData.Mixed(length, length);
            var options = new Lz4FrameEncoderOptions(64 * 1024, 0, contentChecksum: true, contentSize: true);
            byte[] frame = Encode(payload, options);

            AssertFollowsSpec(frame, payload, options);
            Assert.Equal((ulong)length, Lz4FrameDescriptor.Read(frame, 0).ContentSize);
            var ours = new byte[length];
            Assert.True(Lz4FrameDecoder.TryDecode(frame, ours, out int decoded));
            Assert.Equal(length, decoded);
            Assert.Equal(payload, ours);

            // A content size one off is corrupt, reported at the field.
            var e = FrameErrors.Throws(() => Lz4FrameDecoder.Decode(WithContentSize(frame, (ulong)length + 1), new byte[length + 1], out _, out _));
            Assert.Equal(6, e.Offset);
            Assert.Contains($"declares a content size of {length + 1} bytes", e.Message);
        }

        [Lz4CliTheory]
        [MemberData(nameof(ContentSizeCases))]
        public void Content_size_frames_decode_with_the_reference_lz4_cli_which_checks_the_field(int length)
        {
            byte[] payload = TestData.Mixed(length, length);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(64 * 1024, 0, contentSize: true));

            Assert.Equal(payload, ReferenceCli.Decompress(frame));
            // The CLI reads the field: one off, it refuses the frame (so the field is where liblz4 looks for it).
            Assert.NotEqual(0, ReferenceCli.Run(WithContentSize(frame, (ulong)length + 1)).ExitCode);
        }

        /// <summary>The frame with another value in its content size field and the header checksum recomputed.</summary>
        private static byte[] WithContentSize(byte[] frame, ulong contentSize)
        {
            byte[] copy = (byte[])frame.Clone();
            BinaryPrimitives.WriteUInt64LittleEndian(copy.AsSpan(6), contentSize);
            copy[14] = (byte)(XXH32.DigestOf(copy.AsSpan(4, 10)) >> 8);
            return copy;
        }

        private static byte[] Encode(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var destination = new GuardedBuffer(checked((int)Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)));
            Assert.True(Lz4FrameEncoder.TryEncode(payload, destination.Span, out int written, options));
            destination.AssertGuardsIntact();
            return destination.Span.Slice(0, written).ToArray();
        }

        public static IEnumerable<object[]> OneBlockCases()
        {
            foreach (int blockSize in BlockSizes)
            foreach (int length in new[] { 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 4097, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 4097, 2 * 1024 * 1024 + 5, 4 * 1024 * 1024 - 1, 4 * 1024 * 1024 })
            {
                if (length <= blockSize)
                    yield return new object[] { blockSize, length };
            }
        }

        /// <summary>
        /// A source of one block is one block below 256 KiB and equal pieces from 256 KiB up: as many as the largest
        /// power of two that leaves every piece at least 256 KiB, at least two, every piece but the last rounded up to 64
        /// bytes, so that several cores can compress it; the pieces decode with K4os and ours, and the worst-case length
        /// still fits incompressible data, whose pieces are all stored raw.
        /// </summary>
        [Theory]
        [MemberData(nameof(OneBlockCases))]
        public void A_source_of_one_block_from_256_KiB_is_written_as_equal_pieces(int blockSize, int length)
        {
            foreach (bool incompressible in new[] { false, true })
            {
                byte[] payload = incompressible ? Random(length) : TestData.Mixed(length, length);
                var options = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum: true);
                byte[] frame = Encode(payload, options);
                int[] blockContents = AssertFollowsSpec(frame, payload, options);

                int pieces = 1;
                if (length >= 256 * 1024)
                {
                    pieces = 2;
                    while (length / (pieces * 2) >= 256 * 1024)
                        pieces *= 2;
                }
                int piece = ((length + pieces - 1) / pieces + 63) / 64 * 64;
                int[] expected = Enumerable.Range(0, pieces).Select(k => k < pieces - 1 ? piece : length - (pieces - 1) * piece).ToArray();
                Assert.Equal(expected, blockContents);
                Assert.Equal(length switch { < 256 * 1024 => 1, < 1024 * 1024 => 2, < 2 * 1024 * 1024 => 4, < 4 * 1024 * 1024 => 8, _ => 16 }, pieces);

                var ours = new byte[length];
                Assert.True(Lz4FrameDecoder.TryDecode(frame, ours, out int decoded));
                Assert.Equal(length, decoded);
                Assert.Equal(payload, ours);
                var k4os = new byte[length];
                using (var decoder = LZ4Frame.Decode(frame.AsMemory()))
                    Assert.Equal(length, decoder.ReadManyBytes(k4os));
                Assert.Equal(payload, k4os);
            }
        }

        [Lz4CliTheory]
        [MemberData(nameof(OneBlockCases))]
        public void A_source_of_one_block_written_as_equal_pieces_decodes_with_the_reference_lz4_cli(int blockSize, int length)
        {
            foreach (bool incompressible in new[] { false, true })
            {
                byte[] payload = incompressible ? Random(length) : TestData.Mixed(length, length);
                Assert.Equal(payload, ReferenceCli.Decompress(Encode(payload, new Lz4FrameEncoderOptions(blockSize, 0, blockChecksum: true))));
            }
        }

        [Fact]
        public void Incompressible_blocks_are_stored_uncompressed_with_the_high_bit()
        {
            byte[] payload = [.. new byte[70_000], .. Random(70_000)];
            var options = new Lz4FrameEncoderOptions(64 * 1024);
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written, options));

            var reader = new Lz4FrameReader(frame.AsSpan(0, written));
            var stored = new List<bool>();
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.Block)
                    stored.Add(reader.BlockIsUncompressed);
            }
            Assert.Equal(new[] { false, false, true }, stored);
        }

        [Fact]
        public void Too_small_a_destination_returns_false_and_writes_nothing_outside_it()
        {
            byte[] payload = TestData.Mixed(500_000, 3);
            for (int size = 0; size < 64; size++)
            {
                var destination = new GuardedBuffer(size);
                Assert.False(Lz4FrameEncoder.TryEncode(payload, destination.Span, out int written));
                Assert.Equal(0, written);
                destination.AssertGuardsIntact();
            }
        }

        /// <summary>Parses the frame independently of the library's reader: header, checksums, block sizes, end mark.</summary>
        /// <returns>What each block decodes to, in order.</returns>
        private static int[] AssertFollowsSpec(byte[] frame, byte[] payload, Lz4FrameEncoderOptions options)
        {
            Assert.Equal(0x184D2204u, BinaryPrimitives.ReadUInt32LittleEndian(frame));
            byte flg = frame[4], bd = frame[5];
            Assert.Equal(0x40, flg & 0xC0);                       // version 01
            Assert.Equal(0x20, flg & 0x20);                       // independent blocks
            Assert.Equal(options.BlockChecksum, (flg & 0x10) != 0);
            Assert.Equal(options.ContentSize, (flg & 0x08) != 0);
            Assert.Equal(options.ContentChecksum, (flg & 0x04) != 0);
            Assert.Equal(0, flg & 0x03);                          // reserved, no dictionary
            Assert.Equal(0, bd & 0x8F);
            int blockMax = 1 << (8 + 2 * ((bd >> 4) & 7));
            Assert.Equal(options.BlockSize, blockMax);
            int descriptor = options.ContentSize ? 10 : 2;
            if (options.ContentSize)
                Assert.Equal((ulong)payload.Length, BinaryPrimitives.ReadUInt64LittleEndian(frame.AsSpan(6)));
            Assert.Equal((byte)(XXH32.DigestOf(frame.AsSpan(4, descriptor)) >> 8), frame[4 + descriptor]);

            int position = 4 + descriptor + 1, content = 0;
            var blockContents = new List<int>();
            while (true)
            {
                uint field = BinaryPrimitives.ReadUInt32LittleEndian(frame.AsSpan(position));
                position += 4;
                if (field == 0)
                    break;
                int size = (int)(field & 0x7FFFFFFF);
                bool raw = (field & 0x80000000) != 0;
                Assert.InRange(size, 1, blockMax);
                int blockContent = raw ? size : LZ4Codec.Decode(frame.AsSpan(position, size), new byte[blockMax]);
                Assert.True(blockContent > 0);
                Assert.True(raw || size < blockContent, "a compressed block must be smaller than its content");
                if (options.BlockChecksum)
                {
                    Assert.Equal(XXH32.DigestOf(frame.AsSpan(position, size)), BinaryPrimitives.ReadUInt32LittleEndian(frame.AsSpan(position + size)));
                    position += 4;
                }
                position += size;
                content += blockContent;
                blockContents.Add(blockContent);
            }
            if (options.ContentChecksum)
            {
                Assert.Equal(XXH32.DigestOf(payload), BinaryPrimitives.ReadUInt32LittleEndian(frame.AsSpan(position)));
                position += 4;
            }
            Assert.Equal(frame.Length, position);
            Assert.Equal(payload.Length, content);
            return blockContents.ToArray();
        }
    }
}
