using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// A parallel job over a run of complete blocks of one independent-block frame, whose results are taken in block
    /// order: the leading blocks up to the first one that is not as assumed are kept, and that one is left to the
    /// sequential code, which rejects it (or decodes it) itself. Shared by the span decoder
    /// (<see cref="Lz4ParallelDecodeJob"/>) and the stream read-ahead (<see cref="Lz4FrameStreamReadAheadJob"/>).
    /// </summary>
    internal abstract class Lz4BlockListJob : Lz4ParallelJob
    {
        private Block[] _blocks = new Block[16];
        private int _accepted;
        private int _kept;

        /// <summary>The blocks of the current call, as <see cref="SetupBlocks"/> read them.</summary>
        protected Block[] Blocks => _blocks;

        /// <summary>How many leading blocks are kept: all of them until one is not accepted, then the ones before it.</summary>
        protected int Kept => _kept;

        /// <summary>
        /// Reads <paramref name="count"/> block headers from <paramref name="position"/> in <paramref name="input"/>
        /// (each complete and within the block maximum, as <see cref="Lz4ParallelDecodeJob.TryNextBlock"/> checked).
        /// </summary>
        protected void SetupBlocks(ReadOnlySpan<byte> input, int position, int count, int checksumLength)
        {
            Prepare(count);
            if (_blocks.Length < count)
                _blocks = new Block[Math.Max(count, _blocks.Length * 2)];
            for (int i = 0; i < count; i++)
            {
                uint field = BinaryPrimitives.ReadUInt32LittleEndian(input.Slice(position));
                int size = (int)(field & ~Lz4FrameConstants.UncompressedBlockFlag);
                ref Block block = ref _blocks[i];
                block.DataOffset = position + Lz4FrameConstants.BlockHeaderLength;
                block.Length = size;
                block.Uncompressed = (field & Lz4FrameConstants.UncompressedBlockFlag) != 0;
                block.End = block.DataOffset + size + checksumLength;
                block.Decoded = -1;
                position = block.End;
            }
            _accepted = 0;
            _kept = count;
        }

        /// <summary>Runs the call with up to <paramref name="helpers"/> work items besides the caller, then takes the blocks in order.</summary>
        protected void RunInOrder(int helpers)
        {
            try
            {
                StartAndClaim(helpers);
                // Every block is claimed now: take the rest in order, waiting only for blocks that are running.
                while (_accepted < _kept && WaitDone(_accepted))
                {
                    if (!AcceptNext())
                        break;
                }
                if (_accepted < _kept)
                    _kept = _accepted;
            }
            finally
            {
                StopAndWaitForHelpers();
            }
            ThrowIfHelperFailed();
        }

        /// <summary>Takes block <paramref name="index"/> (done) into the result, in order: false when it is not kept.</summary>
        protected abstract bool Accept(int index);

        protected sealed override void AfterCallerBlock()
        {
            // Take the blocks that are done, in order, between the caller's own blocks.
            while (_accepted < _kept && IsDone(_accepted))
            {
                if (!AcceptNext())
                    return;
            }
        }

        /// <summary>Whether <paramref name="data"/> matches the block checksum stored after it in <paramref name="checksum"/>.</summary>
        protected static bool ChecksumMatches(ReadOnlySpan<byte> data, ReadOnlySpan<byte> checksum) =>
            XXH32.DigestOf(data) == BinaryPrimitives.ReadUInt32LittleEndian(checksum);

        private bool AcceptNext()
        {
            if (!Accept(_accepted))
            {
                _kept = _accepted;
                Stop();
                return false;
            }
            _accepted++;
            return true;
        }

        /// <summary>One block of the call: where its data is, and what decoding it gave (-1: not decoded, or refused).</summary>
        protected struct Block
        {
            public int DataOffset;
            public int Length;
            public int End;
            public int Decoded;
            public bool Uncompressed;
        }
    }
}
