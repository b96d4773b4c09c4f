using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The liblz4-agreement reproducers (corpus/liblz4-agreement) through the Arrow codec; the frame decoder's side is in ArrowLz4Fast.Frames.Tests (Liblz4AgreementTests).</summary>
    public class CodecLiblz4AgreementTests
    {
        [Theory]
        [MemberData(nameof(Liblz4Cases.Accepted), MemberType = typeof(Liblz4Cases))]
        public void The_codec_decodes_what_liblz4_decodes_into_the_exact_or_a_longer_length_and_rejects_a_shorter_one(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            using var codec = new Lz4FastCodec();

            // A longer destination is a pooled allocator's rounded-up buffer: the frame goes to its start.
            foreach (int size in new[] { length, length + 1, length + 64 })
            {
                foreach (byte prior in Liblz4Cases.PriorContents)
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

        [Fact]
        public void A_corrupt_frame_after_a_dictionary_frame_is_reported_as_corrupt_not_as_unsupported()
        {
            // The dictionary frame of the corpus, then a frame whose block size exceeds its block maximum.
            byte[] dictionary = File.ReadAllBytes(Corpus.Committed(Liblz4Cases.DictionaryFrame));
            byte[] corrupt = File.ReadAllBytes(Corpus.Committed("liblz4-agreement/codec-fallback-ignores-frames-after-first.lz4"));
            byte[] input = dictionary.Concat(corrupt).ToArray();

            var e = FrameErrors.Throws(() => new Lz4FastCodec().Decompress(input, new byte[1]));

            long offset = e.Offset;
            Assert.True(offset > dictionary.Length, e.Message);
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


        [Theory]
        [MemberData(nameof(Liblz4Cases.Rejected), MemberType = typeof(Liblz4Cases))]
        public void What_liblz4_rejects_the_codec_rejects_with_an_offset_at_every_destination_size(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            using var codec = new Lz4FastCodec();
            foreach (int size in new[] { 0, 1, 2, 64, 65536, 1 << 20 })
            {
                var destination = new GuardedBuffer(size);
                Assert.InRange(FrameErrors.Throws(() => codec.Decompress(frame, destination.Memory)).Offset, 0, frame.Length);
                destination.AssertGuardsIntact();
            }
        }

        [Fact]
        public void The_codec_declines_a_well_formed_dictionary_frame_as_documented()
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(Liblz4Cases.DictionaryFrame));
            Assert.Throws<NotSupportedException>(() => new Lz4FastCodec().Decompress(frame, Memory<byte>.Empty));
        }
    }
}
