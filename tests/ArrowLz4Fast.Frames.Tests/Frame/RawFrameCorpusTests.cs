using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Standalone frames from the reference lz4 CLI 1.9.4 and python-lz4 4.4.5 (Corpus/frames).</summary>
    public class RawFrameCorpusTests
    {
        public static IEnumerable<object[]> ValidFrames() =>
            Corpus.DataFiles("frames").Where(f => Corpus.Sidecar(Corpus.Committed(f)).GetProperty("valid").GetBoolean()).Select(f => new object[] { f });

        public static IEnumerable<object[]> InvalidFrames() =>
            Corpus.DataFiles("frames").Where(f => !Corpus.Sidecar(Corpus.Committed(f)).GetProperty("valid").GetBoolean()).Select(f => new object[] { f });

        [Fact]
        public void The_committed_frame_corpus_is_there()
        {
            Assert.True(ValidFrames().Count() >= 50, "expected the frame matrix under Corpus/frames");
            Assert.NotEmpty(InvalidFrames());
        }

        [Theory]
        [MemberData(nameof(ValidFrames))]
        public void Every_valid_frame_decodes_directly_to_the_reference_bytes(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            var destination = new GuardedBuffer(length);

            Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(frame, destination.Span, out int consumed, out int written);

            Assert.Equal(Lz4FrameDecodeStatus.Done, status);
            Assert.Equal(frame.Length, consumed);
            Assert.Equal(length, written);
            Assert.Equal(expected.GetProperty("sha256").GetString(), Hex.Sha256(destination.Span));
            destination.AssertGuardsIntact();
        }

        [Theory]
        [MemberData(nameof(ValidFrames))]
        public void Every_valid_frame_decodes_into_a_larger_destination_and_reports_its_length(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            // Pooled allocators round lengths up by a little or a lot; the parallel decoder places blocks by the frame's
            // own sizes, never by the destination's length.
            var options = new[] { default(Lz4FrameDecoderOptions), new Lz4FrameDecoderOptions(parallelism: new Lz4Parallelism(2, minimumLength: 1)) };
            foreach (int spare in new[] { 1, 7, 4096, 100_003 })
            {
                foreach (Lz4FrameDecoderOptions option in options)
                {
                    var destination = new GuardedBuffer(length + spare);

                    Assert.True(Lz4FrameDecoder.TryDecode(frame, destination.Span, out int written, option));

                    Assert.Equal(length, written);
                    Assert.Equal(expected.GetProperty("sha256").GetString(), Hex.Sha256(destination.Span.Slice(0, written)));
                    destination.AssertGuardsIntact();
                }
            }
        }

        [Theory]
        [MemberData(nameof(ValidFrames))]
        public void A_destination_one_byte_short_is_reported_not_truncated(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            int length = Corpus.Sidecar(Corpus.Committed(file)).GetProperty("length").GetInt32();
            if (length == 0)
                return;
            var destination = new GuardedBuffer(length - 1);

            Assert.False(Lz4FrameDecoder.TryDecode(frame, destination.Span, out int written));

            Assert.Equal(0, written);
            destination.AssertGuardsIntact();
        }

        [Theory]
        [MemberData(nameof(ValidFrames))]
        public void Checksums_can_be_skipped_without_changing_the_output(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            var destination = new byte[expected.GetProperty("length").GetInt32()];

            Assert.True(Lz4FrameDecoder.TryDecode(frame, destination, out _, new Lz4FrameDecoderOptions(verifyChecksums: false)));

            Assert.Equal(expected.GetProperty("sha256").GetString(), Hex.Sha256(destination));
        }

        [Theory]
        [MemberData(nameof(InvalidFrames))]
        public void Legacy_format_files_are_rejected_as_not_being_frames(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            var e = FrameErrors.Throws(() => Lz4FrameDecoder.Decode(frame, new byte[1 << 23], out _, out _));
            Assert.False(Lz4FrameDecoder.TryDecode(frame, new byte[1 << 23], out int written));
            Assert.Equal(0, written);
            Assert.Contains("legacy", e.Message, StringComparison.OrdinalIgnoreCase);
            long offset = e.Offset;
            Assert.Equal(0, offset);
        }

        [Theory]
        [MemberData(nameof(ValidFrames))]
        public void The_reader_sees_the_profile_the_reference_tool_reports(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement profile = Corpus.Sidecar(Corpus.Committed(file)).GetProperty("profile");
            int frames = 0, skippable = 0, blocks = 0, uncompressedBlocks = 0, largest = 0;
            bool linked = false, blockChecksum = false, contentChecksum = false, contentSize = false;
            int blockMax = 0;

            var reader = new Lz4FrameReader(frame);
            while (reader.Read())
            {
                switch (reader.TokenType)
                {
                    case Lz4FrameTokenType.FrameHeader:
                        frames++;
                        // Several frames: the sidecar reports the largest block maximum and OR-ed flags.
                        blockMax = Math.Max(blockMax, reader.Frame.BlockMaximumSize);
                        linked |= reader.Frame.IsLinked;
                        blockChecksum |= reader.Frame.HasBlockChecksum;
                        contentChecksum |= reader.Frame.HasContentChecksum;
                        contentSize |= reader.Frame.HasContentSize;
                        break;
                    case Lz4FrameTokenType.Block:
                        blocks++;
                        largest = Math.Max(largest, reader.BlockData.Length);
                        if (reader.BlockIsUncompressed)
                            uncompressedBlocks++;
                        break;
                    case Lz4FrameTokenType.SkippableFrame:
                        skippable++;
                        break;
                }
            }

            Assert.Equal(profile.GetProperty("frames").GetInt32(), frames);
            Assert.Equal(profile.GetProperty("skippable_frames").GetInt32(), skippable);
            Assert.Equal(profile.GetProperty("blocks").GetInt32(), blocks);
            Assert.Equal(profile.GetProperty("uncompressed_blocks").GetInt32(), uncompressedBlocks);
            Assert.Equal(profile.GetProperty("largest_block").GetInt32(), largest);
            if (frames == 1)
            {
                Assert.Equal(profile.GetProperty("block_max").GetInt32(), blockMax);
                Assert.Equal(profile.GetProperty("linked").GetBoolean(), linked);
                Assert.Equal(profile.GetProperty("block_checksum").GetBoolean(), blockChecksum);
                Assert.Equal(profile.GetProperty("content_checksum").GetBoolean(), contentChecksum);
                Assert.Equal(profile.GetProperty("content_size").GetBoolean(), contentSize);
            }
        }
    }
}
