using System;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Settings for <see cref="Lz4FrameEncoder"/>. Frames always have independent blocks: every LZ4 frame reader
    /// (liblz4, lz4_flex, commons-compress, K4os) decodes them, and they can be decoded in parallel.
    /// </summary>
    public readonly struct Lz4FrameEncoderOptions
    {
        // The block maximum used when none is given: 256 KiB, as fast and as small as 1 MiB blocks sequentially, and it
        // splits every buffer over 256 KiB into blocks several cores can take (docs/performance-notes.md).
        internal const int DefaultBlockSize = 256 * 1024;

        // The highest compression level (K4os LZ4Level.L12_MAX).
        internal const int MaximumLevel = 12;

        private readonly int _blockSizeId;

        /// <summary>Creates encoder settings.</summary>
        /// <param name="blockSize">
        /// Block maximum in bytes: 65536, 262144, 1048576 or 4194304. A source of one block that is at least
        /// <see cref="Lz4Parallelism.DefaultMinimumLength"/> bytes long is written as two half blocks, so that two cores
        /// can compress it (whatever the parallelism: the bytes never depend on it).
        /// </param>
        /// <param name="level">
        /// Compression level 0 to 12 as in liblz4 and K4os <see cref="LZ4Level"/>: 0 to 2 fast, 3 to 9 HC, 10 to 12 optimal.
        /// </param>
        /// <param name="contentChecksum">Append the xxHash32 of the content after the end mark.</param>
        /// <param name="blockChecksum">Follow each block with the xxHash32 of its stored bytes.</param>
        /// <param name="contentSize">
        /// Write the content size field (8 bytes in the header): readers can size their output before decoding, and
        /// decoders check it (liblz4 and this package's decoder reject a frame whose blocks decode to another length).
        /// </param>
        /// <param name="parallelism">
        /// Threads for sources of two or more blocks; <see langword="default"/> (<see cref="Lz4Parallelism.Sequential"/>)
        /// compresses on the calling thread only. The output is the same bytes whatever it is.
        /// </param>
        /// <exception cref="ArgumentOutOfRangeException">A block size or level outside the ranges above.</exception>
        public Lz4FrameEncoderOptions(int blockSize = DefaultBlockSize, int level = 0, bool contentChecksum = false, bool blockChecksum = false, bool contentSize = false, Lz4Parallelism parallelism = default)
        {
            ContentSize = contentSize;
            _blockSizeId = BlockSizeIdOf(blockSize);
            ValidateLevel(level);
            Level = level;
            ContentChecksum = contentChecksum;
            BlockChecksum = blockChecksum;
            Parallelism = parallelism;
        }

        /// <summary>Parallel compression of the blocks; sequential by default. It never changes the output.</summary>
        public Lz4Parallelism Parallelism { get; }

        /// <summary>The frame's block maximum in bytes.</summary>
        public int BlockSize => Lz4FrameConstants.GetBlockMaximumSize(BlockSizeId);

        /// <summary>The BD byte's block size ID (4 to 7).</summary>
        public int BlockSizeId => _blockSizeId == 0 ? BlockSizeIdOf(DefaultBlockSize) : _blockSizeId;

        /// <summary>Compression level, 0 to 12.</summary>
        public int Level { get; }

        /// <summary>The frame carries a content checksum.</summary>
        public bool ContentChecksum { get; }

        /// <summary>The frame carries block checksums.</summary>
        public bool BlockChecksum { get; }

        /// <summary>The frame header carries the content size (the length of the encoded source).</summary>
        public bool ContentSize { get; }

        // Throws unless level is a compression level K4os accepts (0 to 12).
        internal static void ValidateLevel(int level)
        {
            if (level < 0 || level > MaximumLevel)
            {
                throw new ArgumentOutOfRangeException(
                    nameof(level), level,
                    $"LZ4 compression level must be 0 to {MaximumLevel} (0-2 fast, 3-9 HC, 10-12 optimal).");
            }
        }

        private static int BlockSizeIdOf(int blockSize) => blockSize switch
        {
            64 * 1024 => 4,
            256 * 1024 => 5,
            1024 * 1024 => 6,
            4 * 1024 * 1024 => 7,
            _ => throw new ArgumentOutOfRangeException(
                nameof(blockSize), blockSize, "LZ4 frame block size must be 65536, 262144, 1048576 or 4194304 bytes."),
        };
    }
}
