using System;
using System.Collections.Generic;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Every compressed block of some frames against K4os' block decoder, with the linked prefix as its dictionary.</summary>
    internal static class BlockAgreement
    {
        public static void AssertEveryBlockDecodesAsK4os(IEnumerable<byte[]> frames, string source)
        {
            int blocks = 0;
            foreach (byte[] frame in frames)
            {
                if (frame.Length == 0)
                    continue;
                var reader = new Lz4FrameReader(frame);
                byte[] output = Array.Empty<byte>();
                int written = 0;
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    {
                        output = new byte[64 * 1024 + reader.Frame.BlockMaximumSize];
                        written = 0;
                    }
                    if (reader.TokenType != Lz4FrameTokenType.Block || reader.BlockIsUncompressed)
                        continue;
                    int maximum = reader.Frame.BlockMaximumSize;
                    int prefix = reader.Frame.IsLinked ? Math.Min(written, 64 * 1024) : 0;
                    // Keep the prefix at the start of the buffer: window = prefix + block maximum.
                    if (written > prefix)
                    {
                        Buffer.BlockCopy(output, written - prefix, output, 0, prefix);
                        written = prefix;
                    }

                    byte[] k4os = new byte[maximum];
                    int expected = LZ4Codec.Decode(reader.BlockData, k4os, output.AsSpan(0, prefix));
                    Assert.True(expected >= 0, $"K4os rejects block {reader.BlockIndex} of a {source} frame");

                    byte[] roomy = (byte[])output.Clone();
                    Assert.Equal(expected, Lz4BlockDecoder.Decode(reader.BlockData, roomy.AsSpan(0, prefix + maximum), prefix));
                    Assert.True(k4os.AsSpan(0, expected).SequenceEqual(roomy.AsSpan(prefix, expected)));

                    Assert.Equal(expected, Lz4BlockDecoder.Decode(reader.BlockData, output.AsSpan(0, prefix + expected), prefix));
                    Assert.True(k4os.AsSpan(0, expected).SequenceEqual(output.AsSpan(prefix, expected)));
                    written = prefix + expected;
                    blocks++;
                }
            }
            Assert.True(blocks > 0);
        }
    }
}
