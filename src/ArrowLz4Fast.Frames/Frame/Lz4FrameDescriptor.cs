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

        /// <summary>
        /// Parses the frame header that starts at <paramref name="offset"/> as <see cref="Read(ReadOnlySpan{byte}, int)"/>
        /// does, without throwing: for a caller that only asks what a frame looks like and leaves rejecting a malformed one
        /// to the decoder.
        /// </summary>
        /// <param name="source">The whole input.</param>
        /// <param name="offset">Where the frame's magic number starts.</param>
        /// <param name="descriptor">The descriptor, or <see langword="default"/> when the method returns <see langword="false"/>.</param>
        /// <returns><see langword="true"/> when a whole, valid header starts at <paramref name="offset"/>.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> lies outside <paramref name="source"/>.</exception>
        public static bool TryRead(ReadOnlySpan<byte> source, int offset, out Lz4FrameDescriptor descriptor)
        {
            if ((uint)offset > (uint)source.Length) throw new ArgumentOutOfRangeException(nameof(offset));
            return Parse(source.Slice(offset), out descriptor, out _) == Fault.None;
        }

        /// <summary>The header at <paramref name="offset"/>, with errors placed at <paramref name="at"/> (the stream decoder's offset) instead.</summary>
        internal static Lz4FrameDescriptor Read(ReadOnlySpan<byte> source, int offset, long at)
        {
            ReadOnlySpan<byte> header = source.Slice(offset);
            Fault fault = Parse(header, out Lz4FrameDescriptor descriptor, out int needed);
            if (fault != Fault.None)
                Throw(header, fault, needed, at);
            return descriptor;
        }

        // What is wrong with a header, so that Read and TryRead share one parse and only Read words the error.
        private enum Fault
        {
            None,
            Truncated,
            Magic,
            Version,
            ReservedFlg,
            ReservedBd,
            BlockSizeId,
            Checksum,
        }

        private static Fault Parse(ReadOnlySpan<byte> header, out Lz4FrameDescriptor descriptor, out int needed)
        {
            descriptor = default;
            needed = Lz4FrameConstants.MinimumHeaderLength;
            if (header.Length < needed)
                return Fault.Truncated;
            if (BinaryPrimitives.ReadUInt32LittleEndian(header) != Lz4FrameConstants.FrameMagic)
                return Fault.Magic;

            byte flg = header[4];
            byte bd = header[5];
            if ((flg & Lz4FrameConstants.FlagVersionMask) != Lz4FrameConstants.FlagVersion01)
                return Fault.Version;
            if ((flg & Lz4FrameConstants.FlagReserved) != 0)
                return Fault.ReservedFlg;
            if ((bd & Lz4FrameConstants.BdReservedMask) != 0)
                return Fault.ReservedBd;
            if (((bd >> 4) & 0x07) < 4)
                return Fault.BlockSizeId;

            needed = HeaderLengthOf(flg);
            if (header.Length < needed)
                return Fault.Truncated;

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
            if (header[cursor] != HeaderChecksum(header, cursor))
                return Fault.Checksum;

            descriptor = new Lz4FrameDescriptor(flg, bd, contentSize, dictionaryId, needed);
            return Fault.None;
        }

        /// <summary>Magic, descriptor (FLG, BD, optional content size and dictionary ID) and header checksum.</summary>
        private static int HeaderLengthOf(byte flg) =>
            4 + 2
            + ((flg & Lz4FrameConstants.FlagContentSize) != 0 ? 8 : 0)
            + ((flg & Lz4FrameConstants.FlagDictionaryId) != 0 ? 4 : 0)
            + 1;

        /// <summary>The second byte of the descriptor's xxHash32, which the header checksum byte at <paramref name="cursor"/> must equal.</summary>
        private static byte HeaderChecksum(ReadOnlySpan<byte> header, int cursor) => HeaderChecksumOf(header.Slice(4, cursor - 4));

        /// <summary>The header checksum of a frame descriptor (FLG, BD and the optional fields): the second byte of its xxHash32.</summary>
        internal static byte HeaderChecksumOf(ReadOnlySpan<byte> descriptor) => (byte)(XXH32.DigestOf(descriptor) >> 8);

        private static void Throw(ReadOnlySpan<byte> header, Fault fault, int needed, long at)
        {
            switch (fault)
            {
                case Fault.Truncated:
                    Lz4FrameErrors.ThrowTruncated(at, "the frame header", needed, header.Length);
                    break;
                case Fault.Magic:
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.BadMagic, at, $"expected the LZ4 frame magic number 0x184D2204 but found 0x{BinaryPrimitives.ReadUInt32LittleEndian(header):X8}");
                    break;
                case Fault.Version:
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.Version, at + 4, $"frame version bits are {Convert.ToString(header[4] >> 6, 2).PadLeft(2, '0')} in FLG 0x{header[4]:X2}; only version 01 is defined");
                    break;
                case Fault.ReservedFlg:
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.ReservedBits, at + 4, $"reserved bit 1 of FLG 0x{header[4]:X2} is set");
                    break;
                case Fault.ReservedBd:
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.ReservedBits, at + 5, $"reserved bits of BD 0x{header[5]:X2} are set");
                    break;
                case Fault.BlockSizeId:
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.BlockSize, at + 5, $"block maximum size ID {(header[5] >> 4) & 0x07} in BD 0x{header[5]:X2} is undefined (must be 4 to 7)");
                    break;
                default:
                    int cursor = needed - 1;
                    Lz4FrameErrors.Throw(Lz4FrameErrorKind.HeaderChecksum, at + cursor, $"header checksum is 0x{header[cursor]:X2} but the descriptor hashes to 0x{HeaderChecksum(header, cursor):X2}");
                    break;
            }
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
