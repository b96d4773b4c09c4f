using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Read-ahead for <see cref="Lz4FrameStreamReader"/>: decodes several complete, buffered blocks of an
    /// independent-block frame at once, on the calling thread and helper threads (<see cref="Lz4ParallelJob"/>). The
    /// first blocks go straight into the caller's buffer, one block maximum apart; the rest into the reader's windows,
    /// one block each. The blocks kept are the leading ones up to the first that fails (bad block checksum, corrupt
    /// data): that one is left to the reader's sequential code, which throws its own exception once the caller's reads
    /// reach it. A block in the caller's buffer that decodes short (a frame need not fill its blocks) leaves a gap
    /// before the next one: the blocks after it are moved down behind it as they are taken, in order.
    /// </summary>
    internal sealed unsafe class Lz4FrameStreamReadAheadJob : Lz4BlockListJob
    {
        private byte[] _input = Array.Empty<byte>();
        private byte[]?[] _windows = Array.Empty<byte[]?>();
        private byte* _destination;
        private int _direct;
        private int _blockMaximum;
        private bool _verifyBlockChecksums;
        private bool _hashContent;
        private XXH32.State _contentHash;
        private int _directEnd;

        /// <summary>
        /// Decodes <paramref name="count"/> blocks that start at <paramref name="position"/> in <paramref name="input"/>
        /// (each complete and within the block maximum, as <see cref="Lz4ParallelDecodeJob.TryNextBlock"/> checked): the
        /// first <paramref name="direct"/> into <paramref name="destination"/>, the others into
        /// <paramref name="windows"/>[0..]. Returns how many leading blocks are kept, with the bytes written to
        /// <paramref name="destination"/>, the decoded length of each kept window in <paramref name="windowLengths"/>,
        /// the input position after the last kept block and the content hash advanced over the kept output, in order.
        /// </summary>
        internal static int Decode(
            byte[] input,
            int position,
            int count,
            int direct,
            Span<byte> destination,
            byte[]?[] windows,
            int[] windowLengths,
            int blockMaximum,
            int checksumLength,
            bool verify,
            bool hashContent,
            ref XXH32.State contentHash,
            int degree,
            out int directWritten,
            out int end)
        {
            Lz4FrameStreamReadAheadJob job = Lz4JobPool<Lz4FrameStreamReadAheadJob>.Rent();
            try
            {
                fixed (byte* destinationPointer = destination)
                {
                    job._input = input;
                    job.SetupBlocks(input, position, count, checksumLength);
                    job._windows = windows;
                    job._destination = destinationPointer;
                    job._direct = direct;
                    job._blockMaximum = blockMaximum;
                    job._verifyBlockChecksums = verify && checksumLength != 0;
                    job._hashContent = hashContent;
                    job._contentHash = contentHash;
                    job._directEnd = 0;
                    job.RunInOrder(Math.Min(degree, count) - 1);
                }

                int kept = job.Kept;
                Lz4FramesEventSource log = Lz4FramesEventSource.Log;
                if (log.IsEnabled())
                    log.ParallelDecode(count, kept);
                directWritten = job._directEnd;
                Block[] blocks = job.Blocks;
                end = kept > 0 ? blocks[kept - 1].End : position;
                for (int i = direct; i < kept; i++)
                    windowLengths[i - direct] = blocks[i].Decoded;
                if (kept > 0)
                    contentHash = job._contentHash;
                return kept;
            }
            finally
            {
                job._input = Array.Empty<byte>();
                job._windows = Array.Empty<byte[]?>();
                job._destination = null;
                Lz4JobPool<Lz4FrameStreamReadAheadJob>.Return(job);
            }
        }

        protected override bool Accept(int index)
        {
            ref Block block = ref Blocks[index];
            if (block.Decoded < 0)
                return false;
            ReadOnlySpan<byte> output;
            if (index < _direct)
            {
                // Blocks before it are taken (so not written any more), and it is done: moving it down touches neither
                // a block that is running nor anything past its own place.
                var placed = new Span<byte>(_destination + _directEnd, block.Decoded);
                long at = (long)index * _blockMaximum;
                if (at != _directEnd)
                    new ReadOnlySpan<byte>(_destination + at, block.Decoded).CopyTo(placed);
                _directEnd += block.Decoded;
                output = placed;
            }
            else
            {
                output = new ReadOnlySpan<byte>(_windows[index - _direct], 0, block.Decoded);
            }
            if (_hashContent)
                XXH32.Update(ref _contentHash, output);
            return true;
        }

        protected override void ProcessBlock(int index)
        {
            ref Block block = ref Blocks[index];
            var data = new ReadOnlySpan<byte>(_input, block.DataOffset, block.Length);
            if (_verifyBlockChecksums && !ChecksumMatches(data, _input.AsSpan(block.DataOffset + block.Length)))
                return;

            // The room the sequential reader gives every block: its block maximum.
            Span<byte> output = index < _direct
                ? new Span<byte>(_destination + (long)index * _blockMaximum, _blockMaximum)
                : _windows[index - _direct].AsSpan(0, _blockMaximum);
            if (block.Uncompressed)
            {
                data.CopyTo(output);
                block.Decoded = data.Length;
                return;
            }
            block.Decoded = Lz4BlockDecoder.Decode(data, output, 0);
        }
    }
}
