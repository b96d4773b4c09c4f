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
        [Fact]
        public void The_committed_malformed_corpus_is_there()
        {
            Assert.True(Corpus.DataFiles("malformed").Count() >= 60);
        }

        [Theory]
        [MemberData(nameof(MalformedCases.All), MemberType = typeof(MalformedCases))]
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
            if (file == MalformedCases.DictionaryFrame)
            {
                Assert.Null(error);
                Assert.Equal(Lz4FrameDecodeStatus.DictionaryRequired, status);
                return;
            }
            if (error is null)
            {
                // "Too small" is the span API's answer when the content does not fit (BrotliDecoder's contract):
                // the defect lies beyond what fits. With room for any payload, the defect itself must be found.
                Assert.False(mustFail && (decoded || size == MalformedCases.LargerThanAnyPayload), $"{file} must fail but {(decoded ? "decoded" : "reported too small")} into {size} bytes");
                return;
            }
            MalformedCases.AssertInvalidDataWithOffset(error, input.Length);
        }
    }
}
