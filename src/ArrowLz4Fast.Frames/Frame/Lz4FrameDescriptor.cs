using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>The parsed header of one LZ4 frame (magic number through header checksum).</summary>
    public readonly struct Lz4FrameDescriptor
    {
        private readonly ulong _contentSize;
        private readonly uint _dictionaryId;
        private readonly byte _flags;

        private Lz4FrameDescriptor(byte flags, byte bd, ulong contentSize, uint dictionaryId, int headerLength)
        {
            _flags = flags;
            _contentSize = contentSize;
            _dictionaryId = dictionaryId;
            BlockSizeId = (bd >> 4) & 0x07;
            BlockMaximumSize = Lz4FrameConstants.GetBlockMaximumSize(BlockSizeId);
            HeaderLength = headerLength;
        }

        /// <summary>Blocks may copy from the previous 64 KiB of the frame's output (the block independence flag is clear).</summary>
        public bool IsLinked => (_flags & Lz4FrameConstants.FlagBlockIndependence) == 0;

        /// <summary>Every block is followed by the xxHash32 of its stored bytes.</summary>
        public bool HasBlockChecksum => (_flags & Lz4FrameConstants.FlagBlockChecksum) != 0;

        /// <summary>The end mark is followed by the xxHash32 of the frame's decoded content.</summary>
        public bool HasContentChecksum => (_flags & Lz4FrameConstants.FlagContentChecksum) != 0;

        /// <summary>The header carries the decoded length of the frame.</summary>
        public bool HasContentSize => (_flags & Lz4FrameConstants.FlagContentSize) != 0;

        /// <summary>The decoded length of the frame, when the header carries it; otherwise <see langword="null"/>.</summary>
        public ulong? ContentSize => HasContentSize ? _contentSize : null;

        /// <summary>The header names a dictionary the blocks were compressed against.</summary>
        public bool HasDictionaryId => (_flags & Lz4FrameConstants.FlagDictionaryId) != 0;

        /// <summary>The dictionary ID, when the header carries one; otherwise <see langword="null"/>.</summary>
        public uint? DictionaryId => HasDictionaryId ? _dictionaryId : null;

        /// <summary>The BD byte's block maximum size field (4 to 7).</summary>
        public int BlockSizeId { get; }

        /// <summary>The most uncompressed bytes one block may hold: 64 KiB, 256 KiB, 1 MiB or 4 MiB.</summary>
        public int BlockMaximumSize { get; }

        /// <summary>Bytes from the magic number through the header checksum (7 to 19).</summary>
        public int HeaderLength { get; }

        /// <summary>
        /// Parses and validates the frame header that starts at <paramref name="offset"/>: magic number, version 01,
        /// reserved bits zero, a defined block size ID, and the header checksum.
        /// </summary>
        /// <param name="source">The whole input; offsets in error messages are relative to it.</param>
        /// <param name="offset">Where the frame's magic number starts.</param>
        /// <returns>The descriptor.</returns>
        /// <exception cref="System.IO.InvalidDataException">The header is truncated or malformed.</exception>
        public static Lz4FrameDescriptor Read(ReadOnlySpan<byte> source, int offset)
        {
            if ((uint)offset > (uint)source.Length) throw new ArgumentOutOfRangeException(nameof(offset));
            return Read(source, offset, offset);
        }

        /// <summary>The header at <paramref name="offset"/>, with errors placed at <paramref name="at"/> (the stream decoder's offset) instead.</summary>
        internal static Lz4FrameDescriptor Read(ReadOnlySpan<byte> source, int offset, long at)
        {
            int available = source.Length - offset;
            if (available < Lz4FrameConstants.MinimumHeaderLength)
                Lz4FrameErrors.ThrowTruncated(at, "the frame header", Lz4FrameConstants.MinimumHeaderLength, available);

            ReadOnlySpan<byte> header = source.Slice(offset);
            uint magic = BinaryPrimitives.ReadUInt32LittleEndian(header);
            if (magic != Lz4FrameConstants.FrameMagic)
                Lz4FrameErrors.Throw(at, $"expected the LZ4 frame magic number 0x184D2204 but found 0x{magic:X8}");

            byte flg = header[4];
            byte bd = header[5];
            if ((flg & Lz4FrameConstants.FlagVersionMask) != Lz4FrameConstants.FlagVersion01)
                Lz4FrameErrors.Throw(at + 4, $"frame version bits are {Convert.ToString(flg >> 6, 2).PadLeft(2, '0')} in FLG 0x{flg:X2}; only version 01 is defined");
            if ((flg & Lz4FrameConstants.FlagReserved) != 0)
                Lz4FrameErrors.Throw(at + 4, $"reserved bit 1 of FLG 0x{flg:X2} is set");
            if ((bd & Lz4FrameConstants.BdReservedMask) != 0)
                Lz4FrameErrors.Throw(at + 5, $"reserved bits of BD 0x{bd:X2} are set");
            int blockSizeId = (bd >> 4) & 0x07;
            if (blockSizeId < 4)
                Lz4FrameErrors.Throw(at + 5, $"block maximum size ID {blockSizeId} in BD 0x{bd:X2} is undefined (must be 4 to 7)");

            int descriptorLength = 2
                + ((flg & Lz4FrameConstants.FlagContentSize) != 0 ? 8 : 0)
                + ((flg & Lz4FrameConstants.FlagDictionaryId) != 0 ? 4 : 0);
            int headerLength = 4 + descriptorLength + 1;
            if (available < headerLength)
                Lz4FrameErrors.ThrowTruncated(at, "the frame header", headerLength, available);

            int cursor = 6;
            ulong contentSize = 0;
            if ((flg & Lz4FrameConstants.FlagContentSize) != 0)
            {
                contentSize = BinaryPrimitives.ReadUInt64LittleEndian(header.Slice(cursor));
                cursor += 8;
            }
            uint dictionaryId = 0;
            if ((flg & Lz4FrameConstants.FlagDictionaryId) != 0)
            {
                dictionaryId = BinaryPrimitives.ReadUInt32LittleEndian(header.Slice(cursor));
                cursor += 4;
            }

            byte expected = header[cursor];
            byte actual = (byte)(XXH32.DigestOf(header.Slice(4, descriptorLength)) >> 8);
            if (expected != actual)
                Lz4FrameErrors.Throw(at + cursor, $"header checksum is 0x{expected:X2} but the descriptor hashes to 0x{actual:X2}");

            return new Lz4FrameDescriptor(flg, bd, contentSize, dictionaryId, headerLength);
        }

        /// <inheritdoc />
        public override string ToString() =>
            $"{(IsLinked ? "linked" : "independent")} blocks of up to {BlockMaximumSize} bytes"
            + (HasBlockChecksum ? ", block checksums" : "")
            + (HasContentChecksum ? ", content checksum" : "")
            + (HasContentSize ? $", content size {_contentSize}" : "")
            + (HasDictionaryId ? $", dictionary ID 0x{_dictionaryId:X8}" : "");
    }
}
