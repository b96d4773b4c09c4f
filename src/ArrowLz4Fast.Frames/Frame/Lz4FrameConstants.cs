namespace ArrowLz4Fast.Frames
{
    /// <summary>Numbers fixed by the LZ4 frame format (lz4/lz4 doc/lz4_Frame_format.md).</summary>
    internal static class Lz4FrameConstants
    {
        /// <summary>Magic number that opens every LZ4 frame (little-endian on the wire).</summary>
        public const uint FrameMagic = 0x184D2204;

        /// <summary>Lowest skippable-frame magic number; the low four bits may take any value.</summary>
        public const uint SkippableMagicBase = 0x184D2A50;

        /// <summary>Magic number of the legacy LZ4 format, which is not a frame and is not decoded.</summary>
        public const uint LegacyMagic = 0x184C2102;

        /// <summary>How far back a match in a linked block may reach.</summary>
        public const int WindowSize = 64 * 1024;

        /// <summary>Smallest frame header: magic, FLG, BD and header checksum.</summary>
        public const int MinimumHeaderLength = 7;

        /// <summary>Largest frame header: magic, FLG, BD, content size, dictionary ID and header checksum.</summary>
        public const int MaximumHeaderLength = 19;

        /// <summary>Bytes taken by the end mark.</summary>
        public const int EndMarkLength = 4;

        /// <summary>Bytes taken by a block or content checksum.</summary>
        public const int ChecksumLength = 4;

        /// <summary>Bytes taken by a block size field.</summary>
        public const int BlockHeaderLength = 4;

        internal const uint UncompressedBlockFlag = 0x80000000;

        // FLG byte: version (bits 7-6, must be 01), block independence, block checksum, content size,
        // content checksum, reserved (bit 1), dictionary ID.
        internal const byte FlagVersionMask = 0xC0;
        internal const byte FlagVersion01 = 0x40;
        internal const byte FlagBlockIndependence = 0x20;
        internal const byte FlagBlockChecksum = 0x10;
        internal const byte FlagContentSize = 0x08;
        internal const byte FlagContentChecksum = 0x04;
        internal const byte FlagReserved = 0x02;
        internal const byte FlagDictionaryId = 0x01;

        // BD byte: reserved bit 7 and bits 3-0 around the block size ID.
        internal const byte BdReservedMask = 0x8F;

        /// <summary>The block maximum (uncompressed bytes) for a block-size ID of 4 to 7.</summary>
        /// <param name="blockSizeId">The BD byte's block maximum size field.</param>
        /// <returns>65536, 262144, 1048576 or 4194304; 0 for an ID the format does not define.</returns>
        public static int GetBlockMaximumSize(int blockSizeId) => blockSizeId switch
        {
            4 => 64 * 1024,
            5 => 256 * 1024,
            6 => 1024 * 1024,
            7 => 4 * 1024 * 1024,
            _ => 0,
        };
    }
}
