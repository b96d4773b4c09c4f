using System;
using System.Buffers;
using System.Buffers.Binary;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{

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

        /// <summary>A payload of a named shape: mixed, zeros, random, int64 or mostly-random.</summary>
        public static byte[] Shaped(string shape, int length, int seed)
        {
            var data = new byte[length];
            switch (shape)
            {
                case "mixed":
                    return TestData.Mixed(length, seed);
                case "zeros":
                    return data;
                case "random":
                    new Random(seed).NextBytes(data);
                    return data;
                case "int64":
                    for (int i = 0; i + 8 <= length; i += 8)
                        BinaryPrimitives.WriteInt64LittleEndian(data.AsSpan(i), (i / 8 * 7919L) % 1000003);
                    return data;
                default:
                    // Compresses a little: the frame barely fits, or barely not, in a destination the size of the source.
                    new Random(seed).NextBytes(data);
                    for (int i = 0; i < length; i += 61)
                        data.AsSpan(i, Math.Min(3, length - i)).Clear();
                    return data;
            }
        }

        /// <summary>One frame of the payload, by the package's encoder.</summary>
        public static byte[] Encode(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written, options));
            return frame.AsSpan(0, written).ToArray();
        }
    }
}
