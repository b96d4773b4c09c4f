using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Walks the structure of LZ4 frames in a span — headers, blocks, end marks, skippable frames — without
    /// decoding block contents, in the manner of <c>Utf8JsonReader</c>. Every structural defect (truncation, a bad
    /// magic number, header or reserved bits, a block larger than the frame's maximum or than the input, a block
    /// checksum mismatch, bytes after the last frame) is an <see cref="System.IO.InvalidDataException"/>
    /// whose inner <see cref="Lz4FrameException"/> has the byte offset in <see cref="Lz4FrameException.Offset"/>.
    /// Decoding and the content checks live in <see cref="Lz4FrameDecoder"/>.
    /// </summary>
    public ref struct Lz4FrameReader
    {
        private readonly ReadOnlySpan<byte> _source;
        private readonly bool _verifyChecksums;
        private ReadOnlySpan<byte> _data;
        private Lz4FrameDescriptor _frame;
        private int _position;
        private int _tokenStart;
        private int _frameStart;
        private int _blockIndex;
        private int _frameCount;
        private uint _contentChecksum;
        private bool _blockIsUncompressed;
        private Lz4FrameTokenType _tokenType;

        /// <summary>Starts a reader at the beginning of <paramref name="source"/>.</summary>
        /// <param name="source">One or more concatenated LZ4 frames, possibly with skippable frames between them.</param>
        /// <param name="verifyChecksums">
        /// Verify the checksums the reader sees, each block's when the frame has them (default <see langword="true"/>;
        /// the same name and sense as <see cref="Lz4FrameDecoderOptions.VerifyChecksums"/>). The content checksum
        /// covers decoded bytes, so <see cref="Lz4FrameDecoder"/> verifies it.
        /// </param>
        public Lz4FrameReader(ReadOnlySpan<byte> source, bool verifyChecksums = true)
        {
            _source = source;
            _verifyChecksums = verifyChecksums;
            _data = default;
            _frame = default;
            _position = 0;
            _tokenStart = 0;
            _frameStart = 0;
            _blockIndex = -1;
            _frameCount = 0;
            _contentChecksum = 0;
            _blockIsUncompressed = false;
            _tokenType = Lz4FrameTokenType.None;
        }

        /// <summary>The kind of the token last read.</summary>
        public readonly Lz4FrameTokenType TokenType => _tokenType;

        /// <summary>Byte offset in the input where the last token starts (a block's size field, a frame's magic number).</summary>
        public readonly int TokenStartIndex => _tokenStart;

        /// <summary>Byte offset just past the last token: how much of the input has been consumed.</summary>
        public readonly int BytesConsumed => _position;

        /// <summary>The header of the current frame; valid from its <see cref="Lz4FrameTokenType.FrameHeader"/> token on.</summary>
        public readonly Lz4FrameDescriptor Frame => _frame;

        /// <summary>Byte offset of the current frame's magic number.</summary>
        public readonly int FrameStartIndex => _frameStart;

        /// <summary>How many LZ4 frames (not counting skippable ones) have been started.</summary>
        public readonly int FrameCount => _frameCount;

        /// <summary>Zero-based index of the current block within its frame.</summary>
        public readonly int BlockIndex => _blockIndex;

        /// <summary>The stored bytes of the current block: LZ4-compressed unless <see cref="BlockIsUncompressed"/>.</summary>
        public readonly ReadOnlySpan<byte> BlockData => _tokenType == Lz4FrameTokenType.Block ? _data : default;

        /// <summary>The current block was stored as is (the high bit of its size field is set).</summary>
        public readonly bool BlockIsUncompressed => _blockIsUncompressed;

        /// <summary>The user data of the current skippable frame.</summary>
        public readonly ReadOnlySpan<byte> SkippableData => _tokenType == Lz4FrameTokenType.SkippableFrame ? _data : default;

        /// <summary>The content checksum stored after the end mark, when the frame has one.</summary>
        public readonly uint? ContentChecksum =>
            _tokenType == Lz4FrameTokenType.FrameEnd && _frame.HasContentChecksum ? _contentChecksum : null;

        /// <summary>Advances to the next token.</summary>
        /// <returns><see langword="false"/> once the input is fully consumed after a complete frame.</returns>
        /// <exception cref="System.IO.InvalidDataException">The input is truncated or malformed (the inner <see cref="Lz4FrameException"/> has the offset).</exception>
        public bool Read()
        {
            return _tokenType switch
            {
                Lz4FrameTokenType.FrameHeader or Lz4FrameTokenType.Block => ReadBlockOrEnd(),
                _ => ReadFrameStart(),
            };
        }

        /// <summary>
        /// Puts the reader back just after block <paramref name="blocksRead"/> - 1 of the current frame, whose stored
        /// bytes end at <paramref name="position"/>, as if it had read those blocks itself (the parallel decoder read them).
        /// </summary>
        internal void ResumeBeforeBlock(int position, int blocksRead)
        {
            _position = position;
            _tokenStart = position;
            _blockIndex = blocksRead - 1;
            _data = default;
            _tokenType = Lz4FrameTokenType.Block;
        }

        private bool ReadFrameStart()
        {
            int available = _source.Length - _position;
            if (available == 0)
            {
                if (_position == 0)
                    Lz4FrameErrors.ThrowEmpty();
                return false;
            }

            _tokenStart = _position;
            if (available < 4)
                Lz4FrameErrors.ThrowShortTail(_position, _tokenType == Lz4FrameTokenType.None, available);

            uint magic = BinaryPrimitives.ReadUInt32LittleEndian(_source.Slice(_position));
            if ((magic & 0xFFFFFFF0) == Lz4FrameConstants.SkippableMagicBase)
                return ReadSkippable(available);

            if (magic != Lz4FrameConstants.FrameMagic)
                Lz4FrameErrors.ThrowBadMagic(_position, magic, _tokenType == Lz4FrameTokenType.None, available);

            _frame = Lz4FrameDescriptor.Read(_source, _position);
            _frameStart = _position;
            _position += _frame.HeaderLength;
            _blockIndex = -1;
            _frameCount++;
            _tokenType = Lz4FrameTokenType.FrameHeader;
            return true;
        }

        private bool ReadSkippable(int available)
        {
            if (available < 8)
                Lz4FrameErrors.ThrowTruncated(_position, "the skippable frame header", 8, available);
            uint size = BinaryPrimitives.ReadUInt32LittleEndian(_source.Slice(_position + 4));
            if (size > (uint)(available - 8))
                Lz4FrameErrors.ThrowSkippableTruncated(_position, size, available);
            _data = _source.Slice(_position + 8, (int)size);
            _position += 8 + (int)size;
            _tokenType = Lz4FrameTokenType.SkippableFrame;
            return true;
        }

        private bool ReadBlockOrEnd()
        {
            _tokenStart = _position;
            int available = _source.Length - _position;
            if (available < Lz4FrameConstants.BlockHeaderLength)
                Lz4FrameErrors.ThrowBlockSizeTruncated(_position, _blockIndex + 1, available);

            uint field = BinaryPrimitives.ReadUInt32LittleEndian(_source.Slice(_position));
            if (field == 0)
                return ReadEnd(available);

            int blockIndex = _blockIndex + 1;
            bool uncompressed = (field & Lz4FrameConstants.UncompressedBlockFlag) != 0;
            uint size = field & ~Lz4FrameConstants.UncompressedBlockFlag;
            if (size > (uint)_frame.BlockMaximumSize)
                Lz4FrameErrors.ThrowBlockTooLarge(_position, blockIndex, size, uncompressed, _frame.BlockMaximumSize);

            int checksumLength = _frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int needed = Lz4FrameConstants.BlockHeaderLength + (int)size + checksumLength;
            if (available < needed)
                Lz4FrameErrors.ThrowBlockTruncated(_position, blockIndex, needed, available);

            _data = _source.Slice(_position + Lz4FrameConstants.BlockHeaderLength, (int)size);
            if (checksumLength != 0 && _verifyChecksums)
            {
                int checksumOffset = _position + Lz4FrameConstants.BlockHeaderLength + (int)size;
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(_source.Slice(checksumOffset));
                uint actual = XXH32.DigestOf(_data);
                if (expected != actual)
                    Lz4FrameErrors.ThrowBlockChecksum(checksumOffset, blockIndex, expected, actual, size);
            }

            _blockIsUncompressed = uncompressed;
            _blockIndex = blockIndex;
            _position += needed;
            _tokenType = Lz4FrameTokenType.Block;
            return true;
        }

        private bool ReadEnd(int available)
        {
            int needed = Lz4FrameConstants.EndMarkLength + (_frame.HasContentChecksum ? Lz4FrameConstants.ChecksumLength : 0);
            if (available < needed)
                Lz4FrameErrors.ThrowTruncated(_position, "the end mark and content checksum", needed, available);
            if (_frame.HasContentChecksum)
                _contentChecksum = BinaryPrimitives.ReadUInt32LittleEndian(_source.Slice(_position + Lz4FrameConstants.EndMarkLength));
            _data = default;
            _position += needed;
            _tokenType = Lz4FrameTokenType.FrameEnd;
            return true;
        }
    }
}
