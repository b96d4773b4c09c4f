using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FastOptions.UseK4osDecoder"/>: every buffer through K4os's frame decoder, as the official codec
    /// decodes, held to the package's contract (whole input, checked frame header and content size, no more than the destination, <see cref="System.IO.InvalidDataException"/> with an offset).
    /// </summary>
    public class K4osPathTests
    {
        private static readonly Lz4FastOptions K4os = new() { UseK4osDecoder = true };

        public static IEnumerable<object[]> IpcFiles() =>
            Corpus.CommittedIpcFiles().Where(f => !f.Contains("zstd", StringComparison.Ordinal)).Select(f => new object[] { f });

        public static IEnumerable<object[]> MalformedCases() => Support.MalformedCases.All();

        [Theory]
        [MemberData(nameof(IpcFiles))]
        public void Every_corpus_buffer_decodes_to_the_same_bytes_as_the_direct_path(string file)
        {
            using var direct = new Lz4FastCodec();
            using var k4os = new Lz4FastCodec(K4os);
            foreach ((byte[] frame, int length, string sha256) in CorpusBuffers.Of(file))
            {
                var ours = new byte[length];
                var theirs = new GuardedBuffer(length);
                Assert.Equal(length, direct.Decompress(frame, ours));
                Assert.Equal(length, k4os.Decompress(frame, theirs.Memory));
                theirs.AssertGuardsIntact();
                Assert.True(ours.AsSpan().SequenceEqual(theirs.Span), $"{file}: a {length}-byte buffer differs between the paths");
                Assert.Equal(sha256, Hex.Sha256(theirs.Span));
            }
        }

        [Theory]
        [MemberData(nameof(MalformedCases))]
        public void Malformed_corpus_is_an_InvalidDataException_or_a_dictionary_NotSupportedException(string file, bool mustFail, int size)
        {
            byte[] input = File.ReadAllBytes(Corpus.Committed(file));
            var destination = new GuardedBuffer(size);
            using var codec = new Lz4FastCodec(K4os);

            int returned = -1;
            Exception? error = Record.Exception(() => returned = codec.Decompress(input, destination.Memory));

            destination.AssertGuardsIntact();
            if (file == "malformed/dict_id_present.lz4")
            {
                Assert.IsType<NotSupportedException>(error);
                Assert.Contains("dictionary ID 0x12345678", error!.Message);
                return;
            }
            if (error is null)
            {
                // Arrow writes an empty buffer as a bare length prefix: an empty input is an empty buffer, 0 bytes, which
                // Arrow's reader then compares with the length it declared. The frame header and its content size
                // field are checked on this path too, so nothing else decodes.
                bool emptyBuffer = input.Length == 0 && returned == 0;
                Assert.True(!mustFail || emptyBuffer, $"{file} must fail but K4os decoded {returned} bytes into {size}");
                return;
            }
            var e = FrameErrors.Of(error);
            Assert.InRange(e.Offset, 0, input.Length);
        }

        [Fact]
        public void Lengths_other_than_declared_and_trailing_bytes_are_rejected()
        {
            byte[] payload = TestData.Mixed(200_000, 21);
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length)];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written));
            frame = frame.AsSpan(0, written).ToArray();
            using var codec = new Lz4FastCodec(K4os);

            var output = new byte[payload.Length];
            Assert.Equal(payload.Length, codec.Decompress(frame, output));
            Assert.Equal(payload, output);

            // A longer destination (a pooled buffer) gets the frame at its start; a buffer of the package's allocator is
            // exactly the declared length, so one byte more is an error naming it.
            Assert.Equal(payload.Length, codec.Decompress(frame, new byte[payload.Length + 7]));
            using (var owner = new SlabMemoryAllocator().Allocate(payload.Length + 1))
                Assert.Contains("ends after 200000 decoded bytes but the Arrow buffer declares 200001", FrameErrors.Throws(() => codec.Decompress(frame, owner.Memory)).Message);
            Assert.Contains("decodes to more than the 199999-byte destination holds", FrameErrors.Throws(() => codec.Decompress(frame, new byte[payload.Length - 1])).Message);
            byte[] trailing = [.. frame, 1, 2, 3, 4, 5];
            Exception error = Record.Exception(() => codec.Decompress(trailing, new byte[payload.Length]));
            FrameErrors.Of(error);
        }
    }
}
