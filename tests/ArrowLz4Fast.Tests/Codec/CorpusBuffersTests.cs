using System.Collections.Generic;
using System.Linq;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// ArrowLz4Fast.Frames.Tests takes the corpus IPC buffers without Apache.Arrow (CorpusBuffers walks the messages and
    /// the sidecars): here, the same files read by Arrow's reader hand our codec exactly those frames, lengths and bytes.
    /// </summary>
    public class CorpusBuffersTests
    {
        public static IEnumerable<object[]> Lz4Files() =>
            Corpus.CommittedIpcFiles().Where(f => !f.Contains("zstd", System.StringComparison.Ordinal)).Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(Lz4Files))]
        public void The_buffers_read_without_Arrow_are_those_Arrow_hands_the_codec(string file)
        {
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());
            ArrowData.DisposeAll(ArrowData.ReadAll(Corpus.Committed(file), recorder));
            List<(byte[] Frame, int Length, string Sha256)> walked = CorpusBuffers.Of(file);

            Assert.NotEmpty(walked);
            Assert.Equal(recorder.Inputs.Count, walked.Count);
            for (int i = 0; i < walked.Count; i++)
            {
                Assert.Equal(recorder.Inputs[i].Frame, walked[i].Frame);
                Assert.Equal(recorder.Inputs[i].Length, walked[i].Length);
                Assert.Equal(recorder.Decompressed[i].Sha256, walked[i].Sha256);
            }
        }
    }
}
