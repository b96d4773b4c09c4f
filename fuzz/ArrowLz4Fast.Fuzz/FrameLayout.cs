using System;
using System.Buffers.Binary;
using System.Collections.Generic;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// Where things are in the first frame of a (possibly already mutated) input, parsed leniently so that the
    /// structure-aware mutations can aim at headers, block sizes, sequences and checksums. Not a validator.
    /// </summary>
    internal sealed class FrameLayout
    {
        public const uint Magic = 0x184D2204;

        public int DescriptorStart => 4;

        public int HeaderChecksumAt { get; private set; }

        public byte Flags { get; private set; }

        public int BlockMaximum { get; private set; }

        public bool Linked => (Flags & 0x20) == 0;

        public bool BlockChecksum => (Flags & 0x10) != 0;

        public bool ContentSizePresent => (Flags & 0x08) != 0;

        public bool ContentChecksum => (Flags & 0x04) != 0;

        public int ContentSizeAt => ContentSizePresent ? 6 : -1;

        public List<BlockSpan> Blocks { get; } = new();

        /// <summary>Offset of the end mark, or -1 when the blocks run off the input.</summary>
        public int EndMarkAt { get; private set; } = -1;

        public static FrameLayout? Parse(byte[] data)
        {
            if (data.Length < 7 || BinaryPrimitives.ReadUInt32LittleEndian(data) != Magic)
                return null;
            var layout = new FrameLayout { Flags = data[4] };
            int bd = (data[5] >> 4) & 7;
            layout.BlockMaximum = bd >= 4 ? 1 << (8 + (2 * bd)) : 4 << 20;
            int position = 6 + (layout.ContentSizePresent ? 8 : 0) + ((layout.Flags & 1) != 0 ? 4 : 0);
            if (position >= data.Length)
                return null;
            layout.HeaderChecksumAt = position;
            position++;
            int output = 0;
            while (position + 4 <= data.Length)
            {
                uint field = BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan(position));
                if (field == 0)
                {
                    layout.EndMarkAt = position;
                    break;
                }
                int size = (int)(field & 0x7FFFFFFF);
                bool uncompressed = (field & 0x80000000) != 0;
                if (size > data.Length - position - 4)
                    break;
                var block = new BlockSpan(position, position + 4, size, uncompressed, output);
                layout.Blocks.Add(block);
                output += uncompressed ? size : Math.Min(layout.BlockMaximum, size * 4);
                position += 4 + size + (layout.BlockChecksum ? 4 : 0);
            }
            return layout;
        }

        /// <summary>Recomputes the header checksum byte: (xxHash32 of the descriptor >> 8) &amp; 0xFF.</summary>
        public static void FixHeaderChecksum(byte[] data, int checksumAt)
        {
            if (checksumAt <= 4 || checksumAt >= data.Length)
                return;
            data[checksumAt] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(data.AsSpan(4, checksumAt - 4)) >> 8);
        }
    }

    /// <summary>A block: where its size field and data start, its stored size, and roughly where its output starts.</summary>
    internal readonly record struct BlockSpan(int SizeFieldAt, int DataAt, int Size, bool Uncompressed, int OutputEstimate);

    /// <summary>One LZ4 sequence of a compressed block, by position, parsed leniently.</summary>
    internal readonly record struct Sequence(int TokenAt, int LiteralsAt, int LiteralLength, int OffsetAt, int MatchExtensionAt, int MatchExtensionLength, int OutputBefore)
    {
        public bool HasMatch => OffsetAt >= 0;

        public static List<Sequence> Parse(ReadOnlySpan<byte> block)
        {
            var sequences = new List<Sequence>();
            int ip = 0;
            int output = 0;
            while (ip < block.Length && sequences.Count < 4096)
            {
                int tokenAt = ip;
                int token = block[ip++];
                int literals = token >> 4;
                if (literals == 15)
                {
                    int b;
                    do
                    {
                        if (ip >= block.Length)
                            return sequences;
                        b = block[ip++];
                        literals += b;
                    }
                    while (b == 255);
                }
                int literalsAt = ip;
                if (literals > block.Length - ip)
                    return sequences;
                ip += literals;
                if (ip + 2 > block.Length)
                {
                    sequences.Add(new Sequence(tokenAt, literalsAt, literals, -1, -1, 0, output));
                    return sequences;
                }
                int offsetAt = ip;
                ip += 2;
                int extensionAt = -1, extension = 0, matchLength = (token & 15) + 4;
                if ((token & 15) == 15)
                {
                    extensionAt = ip;
                    int b;
                    do
                    {
                        if (ip >= block.Length)
                            return sequences;
                        b = block[ip++];
                        matchLength += b;
                        extension++;
                    }
                    while (b == 255);
                }
                sequences.Add(new Sequence(tokenAt, literalsAt, literals, offsetAt, extensionAt, extension, output + literals));
                output += literals + matchLength;
            }
            return sequences;
        }
    }
}
