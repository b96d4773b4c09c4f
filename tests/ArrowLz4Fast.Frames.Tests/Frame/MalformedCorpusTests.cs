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
    /// <summary>Broken inputs derived from real frames or crafted (Corpus/malformed), into destinations of several sizes.</summary>
    public class MalformedCorpusTests
    {
        private const string DictionaryFrame = "malformed/dict_id_present.lz4";
        private const int LargerThanAnyPayload = 6 << 20;

        public static IEnumerable<object[]> Cases()
        {
            foreach (string file in Corpus.DataFiles("malformed"))
            {
                JsonElement sidecar = Corpus.Sidecar(Corpus.Committed(file));
                bool mustFail = sidecar.GetProperty("must_fail").GetBoolean();
                foreach (int size in DestinationSizes(sidecar))
                    yield return new object[] { file, mustFail, size };
            }
        }

        /// <summary>Empty, small, the length the reference tool restored (and one less and more), and larger than any payload.</summary>
        private static SortedSet<int> DestinationSizes(JsonElement sidecar)
        {
            var sizes = new SortedSet<int> { 0, 13, 65536, LargerThanAnyPayload };
            if (sidecar.TryGetProperty("reference", out JsonElement reference)
                && reference.TryGetProperty("lz4_cli", out JsonElement cli)
                && cli.TryGetProperty("output_length", out JsonElement restored)
                && restored.GetInt32() > 0)
            {
                sizes.Add(restored.GetInt32() - 1);
                sizes.Add(restored.GetInt32());
                sizes.Add(restored.GetInt32() + 1);
            }
            return sizes;
        }

        [Fact]
        public void The_committed_malformed_corpus_is_there()
        {
            Assert.True(Corpus.DataFiles("malformed").Count() >= 60);
        }

        [Theory]
        [MemberData(nameof(Cases))]
        public void The_frame_decoder_rejects_every_defect_it_must_and_never_writes_outside_the_destination(string file, bool mustFail, int size)
        {
            byte[] input = File.ReadAllBytes(Corpus.Committed(file));
            var destination = new GuardedBuffer(size);

            var status = Lz4FrameDecodeStatus.Done;
            Exception? error = Record.Exception(() => status = Lz4FrameDecoder.Decode(input, destination.Span, out _, out _));
            bool decoded = error is null && status == Lz4FrameDecodeStatus.Done;
            destination.AssertGuardsIntact();

            // TryDecode keeps BrotliDecoder.TryDecompress's promise: true exactly when Decode is done, never a throw.
            Assert.Equal(decoded, Lz4FrameDecoder.TryDecode(input, destination.Span, out _));
            destination.AssertGuardsIntact();
            if (file == DictionaryFrame)
            {
                Assert.Null(error);
                Assert.Equal(Lz4FrameDecodeStatus.DictionaryRequired, status);
                var unsupported = Assert.Throws<NotSupportedException>(() => new Lz4FastCodec().Decompress(input, new byte[Math.Max(size, 1)]));
                Assert.Contains("dictionary ID 0x12345678", unsupported.Message);
                return;
            }
            if (error is null)
            {
                // "Too small" is the span API's answer when the content does not fit (BrotliDecoder's contract):
                // the defect lies beyond what fits. With room for any payload, the defect itself must be found.
                Assert.False(mustFail && (decoded || size == LargerThanAnyPayload), $"{file} must fail but {(decoded ? "decoded" : "reported too small")} into {size} bytes");
                return;
            }
            AssertInvalidDataWithOffset(error, input.Length);
        }

        [Theory]
        [MemberData(nameof(Cases))]
        public void The_arrow_codec_rejects_every_defect_it_must_and_never_writes_outside_the_destination(string file, bool mustFail, int size)
        {
            byte[] input = File.ReadAllBytes(Corpus.Committed(file));
            var destination = new GuardedBuffer(size);
            using var codec = new Lz4FastCodec();

            int returned = -1;
            Exception? error = Record.Exception(() => returned = codec.Decompress(input, destination.Memory));

            destination.AssertGuardsIntact();
            if (file == DictionaryFrame)
            {
                Assert.IsType<NotSupportedException>(error);
                return;
            }
            if (error is null)
            {
                // Arrow writes an empty buffer as a bare length prefix: an empty input is an empty buffer, 0 bytes, which
                // Arrow's reader then compares with the length it declared (the destination may be a longer pooled one).
                bool emptyBuffer = input.Length == 0 && returned == 0;
                Assert.True(!mustFail || emptyBuffer, $"{file} must fail but decoded {returned} bytes into {size}");
                return;
            }
            AssertInvalidDataWithOffset(error, input.Length);
        }

        private static void AssertInvalidDataWithOffset(Exception error, int inputLength)
        {
            // Exactly InvalidDataException (what callers catch), with the offset in its Lz4FrameException.
            long offset = FrameErrors.Of(error).Offset;
            Assert.InRange(offset, 0, inputLength);
            Assert.Contains($"byte offset {offset}", error.Message);
        }
    }
}
