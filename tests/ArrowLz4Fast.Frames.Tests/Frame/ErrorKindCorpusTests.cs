using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.Json;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameException.Kind"/>, <see cref="Lz4FrameException.Offset"/> and <see cref="Lz4FrameException.Detail"/>
    /// on the malformed corpus: the kind is the one liblz4's error code (the sidecar's reference run) names, and the
    /// offset is the same whichever decoder meets the defect (span, stream, batch at another place in its source).
    /// </summary>
    public class ErrorKindCorpusTests
    {
        public static IEnumerable<object[]> Files()
        {
            foreach (string file in Corpus.DataFiles("malformed"))
            {
                if (Expected(Corpus.Sidecar(Corpus.Committed(file))) is { } kind)
                    yield return new object[] { file, kind.ToString() };
            }
        }

        [Fact]
        public void Every_kind_of_frame_defect_is_met_in_the_corpus()
        {
            var met = new HashSet<string>(Files().Select(f => (string)f[1]));
            foreach (Lz4FrameErrorKind kind in new[]
            {
                Lz4FrameErrorKind.Truncated, Lz4FrameErrorKind.BadMagic, Lz4FrameErrorKind.TrailingData, Lz4FrameErrorKind.Version,
                Lz4FrameErrorKind.ReservedBits, Lz4FrameErrorKind.BlockSize, Lz4FrameErrorKind.HeaderChecksum, Lz4FrameErrorKind.BlockChecksum,
                Lz4FrameErrorKind.ContentChecksum, Lz4FrameErrorKind.ContentSize, Lz4FrameErrorKind.MalformedBlock,
            })
            {
                Assert.Contains(kind.ToString(), met);
            }
        }

        [Theory]
        [MemberData(nameof(Files))]
        public void The_kind_is_liblz4s_and_the_offset_is_the_same_from_every_decoder(string file, string expectedName)
        {
            var expected = Enum.Parse<Lz4FrameErrorKind>(expectedName);
            byte[] input = File.ReadAllBytes(Corpus.Committed(file));
            byte[] destination = new byte[MalformedCases.LargerThanAnyPayload];

            Lz4FrameException span = FrameErrors.Throws(() => Lz4FrameDecoder.Decode(input, destination, out _, out _));
            Assert.Equal(expected, span.Kind);
            Assert.InRange(span.Offset, 0, input.Length);
            Assert.Equal($"Invalid LZ4 data at byte offset {span.Offset}: {span.Detail}.", span.Message);
            Assert.DoesNotContain("byte offset", span.Detail, StringComparison.Ordinal);
            Assert.Equal(-1, span.BatchItem);
            AssertAtField(input, span);
            if (span.Kind != Lz4FrameErrorKind.Truncated && RefusedFromTheHeader(Corpus.Sidecar(Corpus.Committed(file))))
            {
                // liblz4 refuses these from the frame header alone (LZ4F_getFrameInfo): so must we, not at a block later on.
                Assert.InRange(span.Offset, 0, HeaderLength(input) - 1);
            }

            // The stream decoder keeps its own position: the same defect at the same offset.
            using (var stream = new Lz4FrameStream(new MemoryStream(input), CompressionMode.Decompress))
            {
                Lz4FrameException streamed = FrameErrors.Throws(() => stream.CopyTo(Stream.Null));
                Assert.Equal(span.Kind, streamed.Kind);
                Assert.Equal(span.Offset, streamed.Offset);
                Assert.Equal(span.Detail, streamed.Detail);
            }

            // In a batch, at another place of its source after a good item: the kind, the item and the offset in the source.
            const int Lead = 37;
            byte[] good = Encode(100);
            byte[] source = new byte[Lead + good.Length + input.Length];
            good.CopyTo(source, Lead);
            input.CopyTo(source, Lead + good.Length);
            var items = new[]
            {
                new Lz4FrameBatchItem(Lead, good.Length, 0, 100),
                new Lz4FrameBatchItem(Lead + good.Length, input.Length, 100, destination.Length - 100),
            };
            foreach (int degree in new[] { 1, 2 })
            {
                Lz4FrameException batch = FrameErrors.Throws(() => Lz4FrameDecoder.DecodeBatch(source, destination, items, new Lz4FrameDecoderOptions(true, new Lz4Parallelism(degree, 1))));
                Assert.Equal(span.Kind, batch.Kind);
                Assert.Equal(span.Detail, batch.Detail);
                Assert.Equal(1, batch.BatchItem);
                Assert.Equal(Lead + good.Length + span.Offset, batch.Offset);
            }
        }

        [Theory]
        [InlineData(0x80)]
        [InlineData(0x40 | 0x80)]
        [InlineData(0x01)]
        public void A_BD_byte_with_a_reserved_bit_set_is_refused_at_BD(int reserved)
        {
            // A valid frame with a reserved BD bit set and the header checksum recomputed: the format says reserved bits
            // must be zero, and liblz4 refuses them (reservedFlag_set) whatever the frame holds after the header.
            byte[] frame = Encode(100);
            int header = HeaderLength(frame);
            frame[5] |= (byte)reserved;
            frame[header - 1] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(frame.AsSpan(4, header - 5)) >> 8);
            Lz4FrameException error = FrameErrors.Throws(() => Lz4FrameDecoder.Decode(frame, new byte[100], out _, out _));
            Assert.Equal(Lz4FrameErrorKind.ReservedBits, error.Kind);
            Assert.Equal(5, error.Offset);
        }

        /// <summary>Whether python-lz4's reference run failed in LZ4F_getFrameInfo, which reads the frame header only.</summary>
        private static bool RefusedFromTheHeader(JsonElement sidecar) =>
            sidecar.TryGetProperty("reference", out JsonElement reference)
            && reference.TryGetProperty("python_lz4", out JsonElement python)
            && python.TryGetProperty("error", out JsonElement error)
            && (error.GetString() ?? "").Contains("LZ4F_getFrameInfo", StringComparison.Ordinal);

        /// <summary>Magic, FLG, BD, the optional content size and dictionary id, and the header checksum.</summary>
        private static int HeaderLength(byte[] frame) =>
            4 + 2 + ((frame[4] & 0x08) != 0 ? 8 : 0) + ((frame[4] & 0x01) != 0 ? 4 : 0) + 1;

        [Fact]
        public void A_dictionary_frame_is_declined_with_its_kind_and_offset_and_a_short_one_with_DecodedLength()
        {
            byte[] dictionary = File.ReadAllBytes(Corpus.Committed(MalformedCases.DictionaryFrame));
            byte[] good = Encode(1000);
            byte[] source = good.Concat(dictionary).ToArray();
            var items = new[]
            {
                new Lz4FrameBatchItem(0, good.Length, 0, 1000),
                new Lz4FrameBatchItem(good.Length, dictionary.Length, 1000, 1 << 20),
            };
            var declined = Assert.Throws<NotSupportedException>(() => Lz4FrameDecoder.DecodeBatch(source, new byte[1000 + (1 << 20)], items));
            Lz4FrameException frame = Assert.IsType<Lz4FrameException>(declined.InnerException);
            Assert.Equal(Lz4FrameErrorKind.DictionaryRequired, frame.Kind);
            Assert.Equal(good.Length, frame.Offset);
            Assert.Equal(1, frame.BatchItem);
            Assert.Equal($"The LZ4 frame at byte offset {good.Length} was {frame.Detail}.", declined.Message);

            // The good frame, declared one byte longer than it decodes to: DecodedLength at its end.
            items = new[] { new Lz4FrameBatchItem(0, good.Length, 0, 1001) };
            Lz4FrameException length = FrameErrors.Throws(() => Lz4FrameDecoder.DecodeBatch(good, new byte[1001], items));
            Assert.Equal(Lz4FrameErrorKind.DecodedLength, length.Kind);
            Assert.Equal(good.Length, length.Offset);
            Assert.Equal(0, length.BatchItem);
            Assert.Contains("1000", length.Detail, StringComparison.Ordinal);
            Assert.Contains("1001", length.Detail, StringComparison.Ordinal);
        }

        private static byte[] Encode(int length)
        {
            byte[] content = new byte[length];
            for (int i = 0; i < length; i++)
                content[i] = (byte)(i * 7 % 251);
            byte[] frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(length)];
            Assert.True(Lz4FrameEncoder.TryEncode(content, frame, out int written));
            return frame.AsSpan(0, written).ToArray();
        }

        /// <summary>Header defects lie at their field, counted from the frame format's layout.</summary>
        private static void AssertAtField(byte[] input, Lz4FrameException error)
        {
            switch (error.Kind)
            {
                case Lz4FrameErrorKind.BadMagic:
                    Assert.Equal(0, error.Offset);
                    break;
                case Lz4FrameErrorKind.Version:
                    Assert.Equal(4, error.Offset); // FLG
                    break;
                case Lz4FrameErrorKind.HeaderChecksum:
                    byte flg = input[4];
                    Assert.Equal(4 + 2 + ((flg & 0x08) != 0 ? 8 : 0) + ((flg & 0x01) != 0 ? 4 : 0), error.Offset);
                    break;
                case Lz4FrameErrorKind.ReservedBits:
                    Assert.True(error.Offset == 4 || error.Offset == 5, $"reserved bits are in FLG (4) or BD (5), not at {error.Offset}");
                    break;
            }
        }

        /// <summary>The kind liblz4's error code (python-lz4's, else the CLI's) names, for a file that must fail; null otherwise.</summary>
        private static Lz4FrameErrorKind? Expected(JsonElement sidecar)
        {
            if (!sidecar.GetProperty("must_fail").GetBoolean())
                return null;
            string text = "";
            if (sidecar.TryGetProperty("reference", out JsonElement reference))
            {
                foreach (JsonProperty tool in reference.EnumerateObject())
                {
                    foreach (string field in new[] { "error", "stderr" })
                    {
                        if (tool.Value.TryGetProperty(field, out JsonElement value) && value.ValueKind == JsonValueKind.String)
                            text += " " + value.GetString();
                    }
                }
            }
            if (sidecar.GetProperty("category").GetString() == "trailing")
                return Lz4FrameErrorKind.TrailingData;
            (string Code, Lz4FrameErrorKind Kind)[] codes =
            {
                ("maxBlockSize_invalid", Lz4FrameErrorKind.BlockSize),
                ("reservedFlag_set", Lz4FrameErrorKind.ReservedBits),
                ("blockChecksum_invalid", Lz4FrameErrorKind.BlockChecksum),
                ("contentChecksum_invalid", Lz4FrameErrorKind.ContentChecksum),
                ("frameSize_wrong", Lz4FrameErrorKind.ContentSize),
                ("decompressionFailed", Lz4FrameErrorKind.MalformedBlock),
                ("headerChecksum_invalid", Lz4FrameErrorKind.HeaderChecksum),
                ("headerVersion_wrong", Lz4FrameErrorKind.Version),
                ("frameType_unknown", Lz4FrameErrorKind.BadMagic),
                ("frameHeader_incomplete", Lz4FrameErrorKind.Truncated),
                ("Frame incomplete", Lz4FrameErrorKind.Truncated),
                ("Unfinished stream", Lz4FrameErrorKind.Truncated),
            };
            foreach ((string code, Lz4FrameErrorKind kind) in codes)
            {
                if (text.Contains(code))
                    return kind;
            }
            return null;
        }
    }
}
