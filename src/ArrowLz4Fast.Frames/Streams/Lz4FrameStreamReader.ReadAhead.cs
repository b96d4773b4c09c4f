using System;

namespace ArrowLz4Fast.Frames
{
    /// <summary>Read-ahead: complete independent blocks buffered behind the next one, decoded at once on several threads.</summary>
    internal sealed partial class Lz4FrameStreamReader
    {
        /// <summary>Read-ahead applies to the current frame: independent blocks, more than one thread, blocks decoded at all.</summary>
        private bool ReadsAhead => _degree > 1 && !_frame.IsLinked && _dictionaryFrame < 0;

        /// <summary>
        /// Decodes the complete blocks buffered from the next one on at once, when there are enough (see remarks):
        /// those that fit whole into <paramref name="destination"/> after <paramref name="written"/> straight there,
        /// up to the degree (or the degree plus one) more into windows. False when it did not, or kept no block: the next block is then
        /// decoded (or rejected) by the sequential code.
        /// </summary>
        private bool ReadAhead(Span<byte> destination, ref int written)
        {
            int blockMaximum = _frame.BlockMaximumSize;
            int checksumLength = _frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int direct = (destination.Length - written) / blockMaximum;
            int limit = Math.Min(Math.Max(direct, _degree), Lz4ParallelJob.MaximumBlocks - 1);
            ReadOnlySpan<byte> input = _in.Array.AsSpan(0, _in.End);
            int position = _in.Start;
            int count = 0;
            while (count < limit && Lz4ParallelDecodeJob.TryNextBlock(input, position, blockMaximum, checksumLength, out int next))
            {
                count++;
                position = next;
            }
            // A block that would be left alone in the buffered input (the one after it incomplete, or the end mark) joins
            // the batch: by itself it would be decoded on the caller alone. The ring has the window for it.
            if (count == limit && Lz4ParallelDecodeJob.TryNextBlock(input, position, blockMaximum, checksumLength, out int last)
                && !Lz4ParallelDecodeJob.TryNextBlock(input, last, blockMaximum, checksumLength, out _))
            {
                count++;
            }
            if (count < 2 || count * (long)blockMaximum < _minimumParallelLength)
                return false;
            direct = Math.Min(direct, count);

            // Windows for the blocks beyond the caller's buffer: at most the degree plus one of them (count <= degree + 1 when any).
            byte[]?[] windows = _ahead.Windows;
            int[] lengths = _ahead.Lengths;
            _ahead.Pick(count - direct, direct > 0, blockMaximum);

            int kept = Lz4FrameStreamReadAheadJob.Decode(
                _in.Array, _in.Start, count, direct, destination.Slice(written), windows, lengths, blockMaximum, checksumLength,
                _verify, _hashContent, ref _contentHash, _degree, out int directWritten, out int end);
            if (kept == 0)
                return false;
            long decoded = directWritten;
            int keptAhead = Math.Max(0, kept - direct);
            for (int i = 0; i < keptAhead; i++)
                decoded += lengths[i];
            written += directWritten;
            _frameOutput += decoded;
            _blockIndex += kept;
            _ahead.Kept(keptAhead);
            _in.Consume(end - _in.Start);
            return true;
        }
    }
}
