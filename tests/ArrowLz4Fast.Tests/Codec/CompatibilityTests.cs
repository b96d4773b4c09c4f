using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Which producers' frames take the direct path, measured on their real output. The table in docs/correctness.md
    /// ("Producers") is this test's output (run with --logger "console;verbosity=detailed").
    /// </summary>
    public class CompatibilityTests
    {
        private readonly ITestOutputHelper _output;

        public CompatibilityTests(ITestOutputHelper output) => _output = output;

        public static IEnumerable<object[]> Producers() => new[]
        {
            new object[] { "pyarrow 26 (Arrow C++)", "ipc/pyarrow/" },
            new object[] { "arrow-rs 60 (lz4_flex)", "ipc/rust/" },
            new object[] { "Arrow Java 19 (commons-compress)", "ipc/java/" },
            new object[] { "Arrow .NET 23 (official codec, K4os defaults)", "generated:official" },
            new object[] { "ArrowLz4Fast writer", "generated:ours" },
        };

        [Theory]
        [MemberData(nameof(Producers))]
        public void Every_LZ4_buffer_of_every_producer_takes_the_direct_path(string producer, string source)
        {
            List<byte[]> frames = Frames(source);
            int direct = 0, linked = 0, checksummed = 0, uncompressedBlocks = 0, empty = 0;
            var blockMaxima = new SortedSet<int>();
            // One destination for every frame: allocating (and zeroing) 64 MiB per frame was most of this test's time.
            var output = new byte[64 << 20];
            foreach (byte[] frame in frames)
            {
                if (frame.Length == 0)
                {
                    empty++;
                    direct++;
                    continue;
                }
                if (Lz4FrameDecoder.Decode(frame, output, out _, out _) == Lz4FrameDecodeStatus.Done)
                    direct++;
                var reader = new Lz4FrameReader(frame);
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    {
                        blockMaxima.Add(reader.Frame.BlockMaximumSize / 1024);
                        if (reader.Frame.IsLinked) linked++;
                        if (reader.Frame.HasContentChecksum || reader.Frame.HasBlockChecksum) checksummed++;
                    }
                    else if (reader.TokenType == Lz4FrameTokenType.Block && reader.BlockIsUncompressed)
                    {
                        uncompressedBlocks++;
                    }
                }
            }

            _output.WriteLine($"| {producer} | {frames.Count} | {string.Join("/", blockMaxima)} KiB | {linked} | {checksummed} | {uncompressedBlocks} | {empty} | {direct}/{frames.Count} ({100.0 * direct / frames.Count:F0} %) |");
            Assert.True(frames.Count > 0);
            Assert.Equal(frames.Count, direct);
        }

        /// <summary>The block decoder on tables written through Arrow's writer, by the official codec and by ours; the producers' corpus is in ArrowLz4Fast.Frames.Tests (BlockDecoderTests).</summary>
        [Theory]
        [InlineData("generated:official")]
        [InlineData("generated:ArrowLz4Fast")]
        public void Every_block_Arrow_writers_wrote_decodes_as_K4os_decodes_it_and_fits_its_exact_length(string source)
        {
            BlockAgreement.AssertEveryBlockDecodesAsK4os(Frames(source), source);
        }

        internal static List<byte[]> Frames(string source)
        {
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory(new OfficialFactory()));
            if (source.StartsWith("generated:", System.StringComparison.Ordinal))
            {
                RecordBatch[] batches = TestTables.Batches(2, 100_000, 6);
                byte[] stream = IpcWriter.Write(batches, source.EndsWith("official", System.StringComparison.Ordinal) ? new OfficialFactory() : new Lz4FastCodecFactory(), fileFormat: false);
                ArrowData.ReadAll(stream, false, recorder);
            }
            else
            {
                foreach (string file in Corpus.CommittedIpcFiles().Where(f => f.StartsWith(source, System.StringComparison.Ordinal) && !f.Contains("zstd", System.StringComparison.Ordinal)))
                    ArrowData.ReadAll(Corpus.Committed(file), recorder);
            }
            return recorder.Inputs.Select(i => i.Frame).ToList();
        }
    }
}
