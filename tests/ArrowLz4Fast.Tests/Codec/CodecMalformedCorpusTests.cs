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
    /// <summary>The malformed corpus (corpus/malformed) through the Arrow codec; the frame decoder's side is in ArrowLz4Fast.Frames.Tests (MalformedCorpusTests).</summary>
    public class CodecMalformedCorpusTests
    {
        [Theory]
        [MemberData(nameof(MalformedCases.All), MemberType = typeof(MalformedCases))]
        public void The_arrow_codec_rejects_every_defect_it_must_and_never_writes_outside_the_destination(string file, bool mustFail, int size)
        {
            byte[] input = File.ReadAllBytes(Corpus.Committed(file));
            var destination = new GuardedBuffer(size);
            using var codec = new Lz4FastCodec();

            int returned = -1;
            Exception? error = Record.Exception(() => returned = codec.Decompress(input, destination.Memory));

            destination.AssertGuardsIntact();
            if (file == MalformedCases.DictionaryFrame)
            {
                var unsupported = Assert.IsType<NotSupportedException>(error);
                Assert.Contains("dictionary ID 0x12345678", unsupported.Message);
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
            MalformedCases.AssertInvalidDataWithOffset(error, input.Length);
        }
    }
}
