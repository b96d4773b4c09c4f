using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Frames from K4os <see cref="LZ4Frame.Encode{T}(ReadOnlySpan{byte}, T, LZ4EncoderSettings)"/> under every combination of its
    /// settings, decoded by the official path and by ours: the bytes must be identical.
    /// </summary>
    public class DifferentialTests
    {
        // The smallest and the largest block maximum: 256 KiB and 1 MiB take the same descriptor and block paths as 4 MiB
        // (every size ID is read in FrameStreamReadTests and the raw-frame corpus).
        private static readonly int[] BlockSizes = { 64 * 1024, 4 * 1024 * 1024 };

        public static IEnumerable<object[]> Settings()
        {
            foreach (bool chain in new[] { true, false })
            foreach (int blockSize in BlockSizes)
            foreach (bool contentChecksum in new[] { false, true })
            foreach (bool blockChecksum in new[] { false, true })
            foreach (bool contentLength in new[] { false, true })
            foreach (LZ4Level level in new[] { LZ4Level.L00_FAST, LZ4Level.L09_HC })
            {
                // The three header flags are parsed apart from one another and from the block loop: half of their
                // eight settings (every pair of flags in all four combinations) per chain, block size and level.
                if ((contentChecksum ^ blockChecksum ^ contentLength) == (chain ^ (level == LZ4Level.L09_HC)))
                    yield return new object[] { chain, blockSize, contentChecksum, blockChecksum, contentLength, level };
            }
        }

        [Theory]
        [MemberData(nameof(Settings))]
        public void Every_K4os_encoder_setting_decodes_identically_on_both_paths(
            bool chain, int blockSize, bool contentChecksum, bool blockChecksum, bool contentLength, LZ4Level level)
        {
            foreach (byte[] payload in Payloads(blockSize))
            {
                var settings = new LZ4EncoderSettings
                {
                    ChainBlocks = chain,
                    BlockSize = blockSize,
                    ContentChecksum = contentChecksum,
                    BlockChecksum = blockChecksum,
                    CompressionLevel = level,
                };
                byte[] frame = TestData.K4osFrame(payload, settings, contentLength);

                byte[] official = new byte[payload.Length];
                using (var decoder = LZ4Frame.Decode(frame.AsMemory()))
                    Assert.Equal(payload.Length, decoder.ReadManyBytes(official));

                byte[] ours = new byte[payload.Length];
                Assert.Equal(Lz4FrameDecodeStatus.Done, Lz4FrameDecoder.Decode(frame, ours, out int consumed, out int written));
                Assert.Equal(frame.Length, consumed);
                Assert.Equal(payload.Length, written);
                Assert.True(official.AsSpan().SequenceEqual(ours), $"{payload.Length}-byte payload differs from the official path");
                Assert.True(payload.AsSpan().SequenceEqual(ours), $"{payload.Length}-byte payload did not round-trip");
            }
        }

        /// <summary>0 B, 1 B, block size -1/+0/+1, and a multi-MiB mix of text, runs, numbers and noise.</summary>
        private static IEnumerable<byte[]> Payloads(int blockSize)
        {
            yield return Array.Empty<byte>();
            yield return new byte[] { 42 };
            byte[] mixed = TestData.Mixed(Math.Max(3 * blockSize + 12345, 5 << 20), seed: blockSize);
            yield return mixed.AsSpan(0, blockSize - 1).ToArray();
            yield return mixed.AsSpan(0, blockSize).ToArray();
            yield return mixed.AsSpan(0, blockSize + 1).ToArray();
            yield return mixed;
        }
    }
}
