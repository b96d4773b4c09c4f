using System;
using System.Buffers.Binary;
using System.Diagnostics;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Writes one LZ4 frame with independent blocks straight into a caller's span: every block is compressed in its
    /// final place, at levels 0-2 by the package's port of liblz4's block compressor (liblz4's
    /// <c>LZ4_compress_default</c> bytes), at the HC levels by K4os
    /// <see cref="LZ4Codec.Encode(ReadOnlySpan{byte}, Span{byte}, LZ4Level)"/>, and a block that would not shrink is
    /// stored uncompressed (the high bit of its size field), as the format requires.
    /// No intermediate buffer, no managed allocation.
    /// </summary>
    public static partial class Lz4FrameEncoder
    {
        /// <summary>The frame length for <paramref name="sourceLength"/> bytes if no block shrinks: a destination this large always suffices.</summary>
        /// <remarks>
        /// A <see cref="long"/>, because the worst case for a source near <see cref="int.MaxValue"/> bytes exceeds
        /// <see cref="int.MaxValue"/>; the caller compares it with the largest buffer it can allocate instead of
        /// getting an overflowed or clamped <see cref="int"/>.
        /// </remarks>
        /// <param name="sourceLength">Bytes to encode.</param>
        /// <param name="options">Frame settings.</param>
        /// <returns>The worst-case frame length.</returns>
        public static long GetMaxEncodedLength(int sourceLength, Lz4FrameEncoderOptions options = default)
        {
            if (sourceLength < 0) throw new ArgumentOutOfRangeException(nameof(sourceLength));
            int stride = BlockStride(sourceLength, options);
            long blocks = (sourceLength + (long)stride - 1) / stride;
            long perBlock = Lz4FrameConstants.BlockHeaderLength + (options.BlockChecksum ? Lz4FrameConstants.ChecksumLength : 0);
            return Lz4FrameConstants.MinimumHeaderLength + (options.ContentSize ? 8 : 0) + sourceLength + blocks * perBlock
                + Lz4FrameConstants.EndMarkLength + (options.ContentChecksum ? Lz4FrameConstants.ChecksumLength : 0);
        }

        /// <summary>Encodes <paramref name="source"/> as one LZ4 frame into <paramref name="destination"/>.</summary>
        /// <param name="source">The content.</param>
        /// <param name="destination">Where the frame goes.</param>
        /// <param name="bytesWritten">Length of the frame; 0 when the method returns <see langword="false"/>.</param>
        /// <param name="options">Frame settings.</param>
        /// <returns>
        /// <see langword="false"/> when the frame does not fit in <paramref name="destination"/> (the contents of
        /// <paramref name="destination"/> are then unspecified, but nothing is written outside it).
        /// </returns>
        public static bool TryEncode(ReadOnlySpan<byte> source, Span<byte> destination, out int bytesWritten, Lz4FrameEncoderOptions options = default)
        {
            bytesWritten = 0;
            int descriptorLength = options.ContentSize ? 10 : 2;
            int headerLength = 4 + descriptorLength + 1;
            if (destination.Length < headerLength)
                return false;

            BinaryPrimitives.WriteUInt32LittleEndian(destination, Lz4FrameConstants.FrameMagic);
            destination[4] = Flags(options.BlockChecksum, options.ContentSize, options.ContentChecksum);
            destination[5] = (byte)(options.BlockSizeId << 4);
            if (options.ContentSize)
                BinaryPrimitives.WriteUInt64LittleEndian(destination.Slice(6), (ulong)source.Length);
            destination[4 + descriptorLength] = options.ContentSize
                ? Lz4FrameDescriptor.HeaderChecksumOf(destination.Slice(4, descriptorLength))
                : s_headerChecksums[HeaderChecksumIndex(options.BlockChecksum, options.ContentChecksum, options.BlockSizeId)];

            int stride = BlockStride(source.Length, options);
            int position = headerLength;
            XXH32.State contentHash = default;
            if (options.ContentChecksum)
                XXH32.Reset(ref contentHash);
            if (options.Parallelism.IsParallel && source.Length >= options.Parallelism.MinimumLength && source.Length > stride)
                return Lz4ParallelEncodeJob.TryEncodeBlocks(source, destination, headerLength, stride, out bytesWritten, options);
            if (!EncodeBlocks(source, destination, 0, stride, ref position, ref contentHash, options))
                return false;

            return TryWriteEnd(destination, position, options, ref contentHash, out bytesWritten);
        }

        // A descriptor without a content size is its flags and BD byte alone: one of sixteen, so its checksum is looked
        // up, not hashed for every frame (a cost that shows on frames of tiny buffers).
        private static readonly byte[] s_headerChecksums = HeaderChecksums();

        /// <summary>The FLG byte this encoder writes: version 01, independent blocks, and the optional fields asked for.</summary>
        private static byte Flags(bool blockChecksum, bool contentSize, bool contentChecksum) =>
            (byte)(Lz4FrameConstants.FlagVersion01 | Lz4FrameConstants.FlagBlockIndependence
                | (blockChecksum ? Lz4FrameConstants.FlagBlockChecksum : 0)
                | (contentSize ? Lz4FrameConstants.FlagContentSize : 0)
                | (contentChecksum ? Lz4FrameConstants.FlagContentChecksum : 0));

        private static int HeaderChecksumIndex(bool blockChecksum, bool contentChecksum, int blockSizeId)
        {
            Debug.Assert(blockSizeId >= 4 && blockSizeId <= 7, "the frame format's block size ids");
            return (blockChecksum ? 8 : 0) | (contentChecksum ? 4 : 0) | (blockSizeId - 4);
        }

        private static byte[] HeaderChecksums()
        {
            var table = new byte[16];
            Span<byte> descriptor = stackalloc byte[2];
            foreach (bool blockChecksum in new[] { false, true })
            {
                foreach (bool contentChecksum in new[] { false, true })
                {
                    for (int id = 4; id <= 7; id++)
                    {
                        descriptor[0] = Flags(blockChecksum, contentSize: false, contentChecksum);
                        descriptor[1] = (byte)(id << 4);
                        table[HeaderChecksumIndex(blockChecksum, contentChecksum, id)] = Lz4FrameDescriptor.HeaderChecksumOf(descriptor);
                    }
                }
            }
            return table;
        }

        /// <summary>The shortest piece a source of one block is cut into (see <see cref="BlockStride"/>).</summary>
        internal const int MinimumPieceLength = 256 * 1024;

        /// <summary>
        /// The length of every block but the last for a source of <paramref name="sourceLength"/> bytes: the block
        /// maximum, except that a source of one block that is at least <see cref="MinimumPieceLength"/> (256 KiB) long
        /// is cut into equal pieces, so that several cores can compress it (and decode it) instead of one: as many as
        /// the largest power of two that leaves every piece at least 256 KiB, and at least two. A 32-bit column of
        /// 65,536 rows at the default 256 KiB blocks is two halves; a 1 MiB buffer at 1 MiB blocks is four quarters.
        /// Equal pieces claimed one at a time balance content of different compressibility, and a power of two divides
        /// evenly over 2, 4 or 8 cores. Every piece but the last is rounded up to 64 bytes. LZ4 matches reach back only
        /// 64 KiB, so the pieces cost little output (docs/performance-notes.md). A frame's blocks may be shorter than its maximum, so every
        /// reader decodes it. The rule depends on the length and the block maximum only, never on the parallelism, so
        /// the bytes are the same on every machine.
        /// </summary>
        internal static int BlockStride(int sourceLength, in Lz4FrameEncoderOptions options)
        {
            int blockSize = options.BlockSize;
            if (sourceLength > blockSize || sourceLength < MinimumPieceLength)
                return blockSize;
            int pieces = 2;
            while (sourceLength / (pieces * 2L) >= MinimumPieceLength)
                pieces *= 2;
            return (int)(((sourceLength + pieces - 1L) / pieces + 63) & ~63L);
        }

        /// <summary>
        /// Compresses the blocks of <paramref name="source"/> from block <paramref name="first"/> on, one after the
        /// other at <paramref name="position"/>: the sequential loop, also where the parallel encoder hands over.
        /// </summary>
        /// <returns><see langword="false"/> when the blocks do not fit.</returns>
        internal static bool EncodeBlocks(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            int first,
            int blockSize,
            ref int position,
            ref XXH32.State contentHash,
            in Lz4FrameEncoderOptions options)
        {
            var level = (LZ4Level)options.Level;
            int checksumLength = options.BlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            for (long offset = first * (long)blockSize; offset < source.Length; offset += blockSize)
            {
                ReadOnlySpan<byte> block = source.Slice((int)offset, (int)Math.Min(blockSize, source.Length - offset));
                // Hashing block by block reads each block while it is still in cache from compressing it.
                if (options.ContentChecksum)
                    XXH32.Update(ref contentHash, block);
                int room = destination.Length - position - Lz4FrameConstants.BlockHeaderLength - checksumLength;
                if (room <= 0)
                    return false;

                Span<byte> data = destination.Slice(position + Lz4FrameConstants.BlockHeaderLength);
                // Capping the output below the block's own length makes K4os give up as soon as it cannot shrink it.
                int limit = Math.Min(room, block.Length - 1);
                int stored = limit > 0 ? Lz4BlockEncoder.Encode(block, data.Slice(0, limit), level) : -1;
                uint sizeField;
                if (stored > 0)
                {
                    sizeField = (uint)stored;
                }
                else
                {
                    if (block.Length > room)
                        return false;
                    block.CopyTo(data);
                    stored = block.Length;
                    sizeField = (uint)stored | Lz4FrameConstants.UncompressedBlockFlag;
                }

                BinaryPrimitives.WriteUInt32LittleEndian(destination.Slice(position), sizeField);
                position += Lz4FrameConstants.BlockHeaderLength + stored;
                if (checksumLength != 0)
                {
                    BinaryPrimitives.WriteUInt32LittleEndian(destination.Slice(position), XXH32.DigestOf(data.Slice(0, stored)));
                    position += checksumLength;
                }
            }

            return true;
        }

        /// <summary>Writes the end mark and content checksum at <paramref name="position"/>.</summary>
        internal static bool TryWriteEnd(Span<byte> destination, int position, Lz4FrameEncoderOptions options, ref XXH32.State contentHash, out int bytesWritten)
        {
            bytesWritten = 0;
            int footerLength = Lz4FrameConstants.EndMarkLength + (options.ContentChecksum ? Lz4FrameConstants.ChecksumLength : 0);
            if (destination.Length - position < footerLength)
                return false;
            BinaryPrimitives.WriteUInt32LittleEndian(destination.Slice(position), 0);
            if (options.ContentChecksum)
                BinaryPrimitives.WriteUInt32LittleEndian(destination.Slice(position + Lz4FrameConstants.EndMarkLength), XXH32.Digest(in contentHash));

            bytesWritten = position + footerLength;
            return true;
        }
    }
}
