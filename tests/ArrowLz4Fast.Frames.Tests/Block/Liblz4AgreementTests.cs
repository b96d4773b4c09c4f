using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Regression tests for the inputs where a differential fuzz campaign found the project disagreeing with liblz4
    /// 1.9.4 (Corpus/liblz4-agreement, copied from the shared corpus with liblz4's verdict in each sidecar): whatever
    /// liblz4 decodes, the project decodes to the same bytes whatever the destination held before and however long
    /// it is; whatever liblz4 rejects, the project rejects with <see cref="System.IO.InvalidDataException"/> and an offset.
    /// </summary>
    public class Liblz4AgreementTests
    {
        private const string Folder = "liblz4-agreement";

        /// <summary>The one documented disagreement here: a frame naming a dictionary is declined (see docs/correctness.md, "Decoding exactly as liblz4").</summary>
        private const string DictionaryFrame = "liblz4-agreement/dict-id-frame.lz4";

        private static readonly byte[] s_priorContents = { 0x00, 0xAB, 0xFF, 0x5A };

        public static IEnumerable<object[]> Accepted() => Files("accepts").Where(f => f != DictionaryFrame).Select(f => new object[] { f });

        public static IEnumerable<object[]> Rejected() => Files("rejects").Select(f => new object[] { f });

        private static IEnumerable<string> Files(string verdict) =>
            Corpus.DataFiles(Folder).Where(f => Corpus.Sidecar(Corpus.Committed(f)).GetProperty("liblz4").GetString() == verdict);

        [Fact]
        public void Every_reproducer_of_the_shared_corpus_is_committed()
        {
            Assert.Equal(7, Corpus.DataFiles(Folder).Count());
            Assert.Equal(5, Accepted().Count());
            Assert.Single(Rejected());
        }

        [Theory]
        [MemberData(nameof(Accepted))]
        public void What_liblz4_decodes_decodes_to_its_bytes_whatever_the_destination_held_and_however_long_it_is(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            string sha256 = expected.GetProperty("sha256").GetString()!;

            foreach (int extra in new[] { 0, 1, 63, 64, 4096, 1 << 20 })
            {
                foreach (byte prior in s_priorContents)
                {
                    var destination = new GuardedBuffer(length + extra);
                    destination.Span.Fill(prior);

                    Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(frame, destination.Span, out int consumed, out int written);

                    Assert.Equal(Lz4FrameDecodeStatus.Done, status);
                    Assert.Equal(frame.Length, consumed);
                    Assert.Equal(length, written);
                    Assert.True(sha256 == Hex.Sha256(destination.Span.Slice(0, written)), $"{file}: wrong bytes into {length + extra} bytes pre-filled with 0x{prior:X2}");
                    destination.AssertGuardsIntact();
                }
            }
        }

        [Theory]
        [MemberData(nameof(Accepted))]
        public void The_codec_decodes_what_liblz4_decodes_into_the_exact_or_a_longer_length_and_rejects_a_shorter_one(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            using var codec = new Lz4FastCodec();

            // A longer destination is a pooled allocator's rounded-up buffer: the frame goes to its start.
            foreach (int size in new[] { length, length + 1, length + 64 })
            {
                foreach (byte prior in s_priorContents)
                {
                    var destination = new GuardedBuffer(size);
                    destination.Span.Fill(prior);
                    Assert.Equal(length, codec.Decompress(frame, destination.Memory));
                    Assert.Equal(expected.GetProperty("sha256").GetString(), Hex.Sha256(destination.Span.Slice(0, length)));
                    destination.AssertGuardsIntact();
                }
            }

            if (length > 0)
            {
                var destination = new GuardedBuffer(length - 1);
                FrameErrors.Throws(() => codec.Decompress(frame, destination.Memory));
                destination.AssertGuardsIntact();
            }

            // A buffer of the package's allocator is exactly the declared length: one byte more is an error.
            var allocator = new SlabMemoryAllocator();
            using var owner = allocator.Allocate(length + 1);
            var e = FrameErrors.Throws(() => codec.Decompress(frame, owner.Memory));
            Assert.Contains($"ends after {length} decoded bytes but the Arrow buffer declares {length + 1}", e.Message);
        }

        [Theory]
        [MemberData(nameof(Rejected))]
        public void What_liblz4_rejects_is_an_InvalidDataException_with_an_offset_at_every_destination_size(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            using var codec = new Lz4FastCodec();

            foreach (int size in new[] { 0, 1, 2, 64, 65536, 1 << 20 })
            {
                var destination = new GuardedBuffer(size);
                var codecError = FrameErrors.Throws(() => codec.Decompress(frame, destination.Memory));
                long offset = codecError.Offset;
                Assert.InRange(offset, 0, frame.Length);

                // The frame API stops at the first block that does not fit, like BrotliDecoder: with no room for the
                // valid first frame's one byte it says so before reaching the corrupt frame.
                if (size == 0)
                    Assert.Equal(Lz4FrameDecodeStatus.DestinationTooSmall, Lz4FrameDecoder.Decode(frame, destination.Span, out _, out _));
                else
                    FrameErrors.Throws(() => Lz4FrameDecoder.Decode(frame, destination.Span, out _, out _));
                destination.AssertGuardsIntact();
            }
        }

        [Fact]
        public void A_corrupt_frame_after_a_dictionary_frame_is_reported_as_corrupt_not_as_unsupported()
        {
            // The dictionary frame of the corpus, then a frame whose block size exceeds its block maximum.
            byte[] dictionary = File.ReadAllBytes(Corpus.Committed(DictionaryFrame));
            byte[] corrupt = File.ReadAllBytes(Corpus.Committed("liblz4-agreement/codec-fallback-ignores-frames-after-first.lz4"));
            byte[] input = dictionary.Concat(corrupt).ToArray();

            var e = FrameErrors.Throws(() => new Lz4FastCodec().Decompress(input, new byte[1]));

            long offset = e.Offset;
            Assert.True(offset > dictionary.Length, e.Message);
        }

        [Fact]
        public void A_well_formed_dictionary_frame_is_declined_as_documented()
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(DictionaryFrame));
            Assert.Equal("accepts", Corpus.Sidecar(Corpus.Committed(DictionaryFrame)).GetProperty("liblz4").GetString());

            Assert.Equal(Lz4FrameDecodeStatus.DictionaryRequired, Lz4FrameDecoder.Decode(frame, new byte[16], out int consumed, out int written));
            Assert.Equal(0, consumed);
            Assert.Equal(0, written);
            Assert.Throws<NotSupportedException>(() => new Lz4FastCodec().Decompress(frame, Memory<byte>.Empty));
        }

        [Fact]
        public void A_match_with_offset_0_decodes_to_zeros_in_a_recycled_buffer()
        {
            // A pooled allocator hands out buffers that held earlier data: none of it may come back as output.
            byte[] frame = File.ReadAllBytes(Corpus.Committed("liblz4-agreement/offset0-stale-destination.lz4"));
            int length = Corpus.Sidecar(Corpus.Committed("liblz4-agreement/offset0-stale-destination.lz4")).GetProperty("length").GetInt32();
            byte[] secret = new byte[length];
            new Random(42).NextBytes(secret);
            byte[] recycled = (byte[])secret.Clone();

            new Lz4FastCodec().Decompress(frame, recycled);

            int leaked = 0;
            for (int i = 0; i < length; i++)
                leaked += recycled[i] == secret[i] && secret[i] != 0 ? 1 : 0;
            Assert.True(leaked < 8, $"{leaked} bytes of the buffer's earlier contents came back as output");
        }
    }
}
