using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>The tokens of the frame format as the step function meets them: frame header, skippable frame, block, end mark.</summary>
    internal sealed partial class Lz4FrameStreamReader
    {
        /// <summary>A frame or skippable frame starts here, or the input ends.</summary>
        private int FrameStart()
        {
            int available = _in.Available;
            if (available < 4 && !_in.Eof)
                return 4;
            if (available == 0)
            {
                if (!_in.ConsumedAny)
                    Lz4FrameErrors.ThrowEmpty();
                _finished = true;
                if (_dictionaryFrame >= 0)
                    Lz4FrameErrors.ThrowDictionaryNotSupported(_dictionaryFrame, _dictionaryId);
                return Lz4StreamNeed.None;
            }
            if (available < 4)
                Lz4FrameErrors.ThrowShortTail(_in.Offset, !_in.ConsumedAny, available);

            uint magic = BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered);
            if ((magic & 0xFFFFFFF0) == Lz4FrameConstants.SkippableMagicBase)
            {
                if (available < 8 && !_in.Eof)
                    return 8;
                if (available < 8)
                    Lz4FrameErrors.ThrowTruncated(_in.Offset, "the skippable frame header", 8, available);
                _skipSize = BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered.Slice(4));
                _skipFrameStart = _in.Offset;
                _skipRemaining = _skipSize;
                _in.Consume(8);
                return Lz4StreamNeed.None;
            }
            if (magic != Lz4FrameConstants.FrameMagic)
            {
                if (!_in.Eof)
                    return Lz4StreamNeed.DrainToEnd;
                Lz4FrameErrors.ThrowBadMagic(_in.Offset, magic, !_in.ConsumedAny, available + _in.Drained);
            }

            if (available < 5 && !_in.Eof)
                return 5;
            int headerLength = Lz4FrameConstants.MinimumHeaderLength;
            if (available >= 5)
            {
                byte flg = _in.Array[_in.Start + 4];
                headerLength += ((flg & Lz4FrameConstants.FlagContentSize) != 0 ? 8 : 0) + ((flg & Lz4FrameConstants.FlagDictionaryId) != 0 ? 4 : 0);
            }
            if (available < headerLength && !_in.Eof)
                return headerLength;

            Lz4FrameDescriptor frame = Lz4FrameDescriptor.Read(_in.Buffered, 0, _in.Offset);
            _frame = frame;
            _frameStart = _in.Offset;
            _blockIndex = -1;
            _frameOutput = 0;
            _directStart = -1;
            _history.Reset();
            _inFrame = true;
            _ahead.Clear();
            _hashContent = _verify && frame.HasContentChecksum;
            if (_hashContent)
                XXH32.Reset(ref _contentHash);
            if (frame.HasDictionaryId && _dictionaryFrame < 0)
            {
                _dictionaryFrame = _in.Offset;
                _dictionaryId = frame.DictionaryId;
            }
            _in.Consume(frame.HeaderLength);
            if (ReadsAhead)
                _in.Ensure(Math.Max(_degree * frame.BlockMaximumSize, _minimumParallelLength));
            return Lz4StreamNeed.None;
        }

        /// <summary>Skips the user data of a skippable frame.</summary>
        private int Skip()
        {
            int n = (int)Math.Min(_in.Available, _skipRemaining);
            _in.Consume(n);
            _skipRemaining -= n;
            if (_skipRemaining == 0)
                return Lz4StreamNeed.None;
            if (_in.Eof)
                Lz4FrameErrors.ThrowSkippableTruncated(_skipFrameStart, _skipSize, 8L + _skipSize - _skipRemaining);
            return Lz4StreamNeed.AnyByte;
        }

        /// <summary>The next block of the current frame, or its end mark.</summary>
        private int BlockOrEnd(Span<byte> destination, ref int written)
        {
            int available = _in.Available;
            if (available < Lz4FrameConstants.BlockHeaderLength && !_in.Eof)
                return Lz4FrameConstants.BlockHeaderLength;
            if (available < Lz4FrameConstants.BlockHeaderLength)
                Lz4FrameErrors.ThrowBlockSizeTruncated(_in.Offset, _blockIndex + 1, available);

            uint field = BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered);
            if (field == 0)
                return End(available);

            int blockIndex = _blockIndex + 1;
            bool uncompressed = (field & Lz4FrameConstants.UncompressedBlockFlag) != 0;
            uint size = field & ~Lz4FrameConstants.UncompressedBlockFlag;
            int blockMaximum = _frame.BlockMaximumSize;
            if (size > (uint)blockMaximum)
                Lz4FrameErrors.ThrowBlockTooLarge(_in.Offset, blockIndex, size, uncompressed, blockMaximum);
            int checksumLength = _frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int needed = Lz4FrameConstants.BlockHeaderLength + (int)size + checksumLength;
            if (available < needed && !_in.Eof)
                return needed;
            if (available < needed)
                Lz4FrameErrors.ThrowBlockTruncated(_in.Offset, blockIndex, needed, available);
            if (ReadsAhead && ReadAhead(destination, ref written))
                return Lz4StreamNeed.None;

            ReadOnlySpan<byte> data = _in.Buffered.Slice(Lz4FrameConstants.BlockHeaderLength, (int)size);
            if (checksumLength != 0 && _verify)
            {
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered.Slice(Lz4FrameConstants.BlockHeaderLength + (int)size));
                uint actual = XXH32.DigestOf(data);
                if (expected != actual)
                    Lz4FrameErrors.ThrowBlockChecksum(_in.Offset + Lz4FrameConstants.BlockHeaderLength + size, blockIndex, expected, actual, size);
            }

            if (_dictionaryFrame < 0)
                DecodeBlock(data, uncompressed, destination, ref written);
            _blockIndex = blockIndex;
            _in.Consume(needed);
            return Lz4StreamNeed.None;
        }

        private void DecodeBlock(ReadOnlySpan<byte> data, bool uncompressed, Span<byte> destination, ref int written)
        {
            bool linked = _frame.IsLinked;
            int blockMaximum = _frame.BlockMaximumSize;
            int prefix = linked ? (int)Math.Min(_frameOutput, Lz4FrameConstants.WindowSize) : 0;
            int room = destination.Length - written;
            int decoded;

            // Straight into the caller's buffer when the block has its block maximum of room there (liblz4 gives every
            // block that much) and, for a linked block, its prefix is there too: what this call wrote is the latest output.
            if (uncompressed ? data.Length <= room : room >= blockMaximum && written >= prefix)
            {
                if (_directStart < 0)
                    _directStart = written;
                decoded = DecodeBlockAt(data, uncompressed, destination, written, prefix, blockMaximum);
                written += decoded;
                _frameOutput += decoded;
                return;
            }

            // Through the window: the history (linked) is made current first, then the block decodes after it.
            SaveHistory(destination, written);
            int start = _history.Prepare(linked, blockMaximum);
            byte[] window = _history.Buffer;
            decoded = DecodeBlockAt(data, uncompressed, window, start, prefix, blockMaximum);
            _frameOutput += decoded;
            _pendingBuffer = window;
            _pendingStart = start;
            _pendingEnd = start + decoded;
            if (linked)
                _history.Decoded(start + decoded, _frameOutput);

            int n = Math.Min(decoded, destination.Length - written);
            window.AsSpan(start, n).CopyTo(destination.Slice(written));
            _pendingStart += n;
            written += n;
        }

        /// <summary>
        /// Decodes (or copies, if stored uncompressed) one block to <paramref name="at"/> in <paramref name="output"/>,
        /// whose <paramref name="prefix"/> bytes before it are a linked block's history, and hashes what it wrote.
        /// </summary>
        private int DecodeBlockAt(ReadOnlySpan<byte> data, bool uncompressed, Span<byte> output, int at, int prefix, int blockMaximum)
        {
            int decoded;
            if (uncompressed)
            {
                data.CopyTo(output.Slice(at));
                decoded = data.Length;
            }
            else
            {
                decoded = Lz4BlockDecoder.Decode(data, output.Slice(at - prefix, prefix + blockMaximum), prefix);
                if (decoded < 0)
                    throw Lz4FrameErrors.CorruptBlock(_in.Offset, _blockIndex + 1, data.Length, prefix, blockMaximum);
            }
            if (_hashContent)
                XXH32.Update(ref _contentHash, output.Slice(at, decoded));
            return decoded;
        }

        /// <summary>The end mark, the content checksum after it, and the content size check.</summary>
        private int End(int available)
        {
            int needed = Lz4FrameConstants.EndMarkLength + (_frame.HasContentChecksum ? Lz4FrameConstants.ChecksumLength : 0);
            if (available < needed && !_in.Eof)
                return needed;
            if (available < needed)
                Lz4FrameErrors.ThrowTruncated(_in.Offset, "the end mark and content checksum", needed, available);
            if (_dictionaryFrame < 0)
            {
                if (_frame.ContentSize is ulong size && size != 0 && size != (ulong)_frameOutput)
                    Lz4FrameErrors.ThrowContentSize(_frameStart + 6, size, _frameOutput);
                if (_hashContent)
                {
                    uint expected = BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered.Slice(Lz4FrameConstants.EndMarkLength));
                    uint actual = XXH32.Digest(in _contentHash);
                    if (actual != expected)
                        Lz4FrameErrors.ThrowContentChecksum(_in.Offset + Lz4FrameConstants.EndMarkLength, expected, actual, _frameOutput);
                }
            }
            _inFrame = false;
            _in.Consume(needed);
            return Lz4StreamNeed.None;
        }
    }
}
