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
    /// <summary>
    /// Regression tests for the inputs where a differential fuzz campaign found the project disagreeing with liblz4
    /// 1.9.4 (Corpus/liblz4-agreement, copied from the shared corpus with liblz4's verdict in each sidecar): whatever
    /// liblz4 decodes, the project decodes to the same bytes whatever the destination held before and however long
    /// it is; whatever liblz4 rejects, the project rejects with <see cref="System.IO.InvalidDataException"/> and an offset.
    /// </summary>
    public class Liblz4AgreementTests
    {
        [Fact]
        public void Every_reproducer_of_the_shared_corpus_is_committed()
        {
            Assert.Equal(7, Corpus.DataFiles(Liblz4Cases.Folder).Count());
            Assert.Equal(5, Liblz4Cases.Accepted().Count());
            Assert.Single(Liblz4Cases.Rejected());
        }

        [Theory]
        [MemberData(nameof(Liblz4Cases.Accepted), MemberType = typeof(Liblz4Cases))]
        public void What_liblz4_decodes_decodes_to_its_bytes_whatever_the_destination_held_and_however_long_it_is(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement expected = Corpus.Sidecar(Corpus.Committed(file));
            int length = expected.GetProperty("length").GetInt32();
            string sha256 = expected.GetProperty("sha256").GetString()!;

            foreach (int extra in new[] { 0, 1, 63, 64, 4096, 1 << 20 })
            {
                foreach (byte prior in Liblz4Cases.PriorContents)
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
        [MemberData(nameof(Liblz4Cases.Rejected), MemberType = typeof(Liblz4Cases))]
        public void What_liblz4_rejects_is_an_InvalidDataException_with_an_offset_at_every_destination_size(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            foreach (int size in new[] { 0, 1, 2, 64, 65536, 1 << 20 })
            {
                var destination = new GuardedBuffer(size);

                // The frame API stops at the first block that does not fit, like BrotliDecoder: with no room for the
                // valid first frame's one byte it says so before reaching the corrupt frame.
                if (size == 0)
                    Assert.Equal(Lz4FrameDecodeStatus.DestinationTooSmall, Lz4FrameDecoder.Decode(frame, destination.Span, out _, out _));
                else
                    Assert.InRange(FrameErrors.Throws(() => Lz4FrameDecoder.Decode(frame, destination.Span, out _, out _)).Offset, 0, frame.Length);
                destination.AssertGuardsIntact();
            }
        }

        [Fact]
        public void A_well_formed_dictionary_frame_is_declined_as_documented()
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(Liblz4Cases.DictionaryFrame));
            Assert.Equal("accepts", Corpus.Sidecar(Corpus.Committed(Liblz4Cases.DictionaryFrame)).GetProperty("liblz4").GetString());

            Assert.Equal(Lz4FrameDecodeStatus.DictionaryRequired, Lz4FrameDecoder.Decode(frame, new byte[16], out int consumed, out int written));
            Assert.Equal(0, consumed);
            Assert.Equal(0, written);
        }
    }
}
