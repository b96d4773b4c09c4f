using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
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
        private static readonly int[] BlockSizes = { 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024 };

        public static IEnumerable<object[]> Settings()
        {
            foreach (bool chain in new[] { true, false })
            foreach (int blockSize in BlockSizes)
            foreach (bool contentChecksum in new[] { false, true })
            foreach (bool blockChecksum in new[] { false, true })
            foreach (bool contentLength in new[] { false, true })
            foreach (LZ4Level level in new[] { LZ4Level.L00_FAST, LZ4Level.L09_HC })
                yield return new object[] { chain, blockSize, contentChecksum, blockChecksum, contentLength, level };
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

    /// <summary>Deterministic payloads of realistic shapes, and frames made of them.</summary>
    internal static class TestData
    {
        /// <summary>
        /// A K4os frame; with <paramref name="contentSize"/> the header also carries the content size. K4os 1.3.8's
        /// writer throws NotImplementedException for <see cref="LZ4EncoderSettings.ContentLength"/>, so the field is
        /// inserted here as the spec lays it out: FLG bit 3, 8 little-endian bytes after BD, header checksum recomputed.
        /// </summary>
        public static byte[] K4osFrame(byte[] payload, LZ4EncoderSettings settings, bool contentSize)
        {
            byte[] frame = LZ4Frame.Encode(payload.AsSpan(), new ArrayBufferWriter<byte>(), settings).WrittenSpan.ToArray();
            if (!contentSize)
                return frame;
            Assert.Equal(0, frame[4] & 0x09); // no content size or dictionary ID yet: the header is 7 bytes
            var withSize = new byte[frame.Length + 8];
            frame.AsSpan(0, 6).CopyTo(withSize);
            withSize[4] |= 0x08;
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(withSize.AsSpan(6), (ulong)payload.Length);
            withSize[14] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(withSize.AsSpan(4, 10)) >> 8);
            frame.AsSpan(7).CopyTo(withSize.AsSpan(15));
            return withSize;
        }

        public static byte[] Mixed(int length, int seed)
        {
            var random = new Random(seed);
            var data = new byte[length];
            int i = 0;
            string[] words = { "lorem ", "ipsum ", "dolor ", "arrow ", "batch ", "column ", "int64 ", "utf8 " };
            while (i < length)
            {
                int run = Math.Min(length - i, random.Next(1, 20_000));
                switch (random.Next(4))
                {
                    case 0:
                        for (int j = 0; j < run; j++)
                        {
                            string word = words[(i + j) / 6 % words.Length];
                            data[i + j] = (byte)word[(i + j) % word.Length];
                        }
                        break;
                    case 1:
                        data.AsSpan(i, run).Fill((byte)random.Next(256));
                        break;
                    case 2:
                        for (int j = 0; j < run; j++)
                            data[i + j] = (byte)(((i + j) / 8 * 7919) >> ((i + j) % 8 * 2));
                        break;
                    default:
                        random.NextBytes(data.AsSpan(i, run));
                        break;
                }
                i += run;
            }
            return data;
        }
    }
}
