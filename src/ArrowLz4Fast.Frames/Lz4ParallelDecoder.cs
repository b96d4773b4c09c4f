using System;
using System.Buffers.Binary;
using System.Threading;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Decodes the blocks of an independent-block frame in parallel, straight into the destination. A frame does not
    /// promise that every block but the last is full, so block <c>k</c> is placed at <c>k * blockMaximum</c> and its
    /// decoded size is checked: the blocks up to the first one that is not exactly as assumed (short, corrupt, too
    /// large for the space left, a bad block checksum, a structural defect) are kept, and decoding continues
    /// sequentially from that block, in <see cref="Lz4FrameDecoder"/>'s own loop. So the result is always exactly the
    /// sequential one: the same bytes, and the same exception (the lowest failing block's, thrown by the sequential
    /// code itself). Every block is given the same output space as in the sequential path, because its position is
    /// the sequential position whenever every block before it was full.
    /// </summary>
    internal sealed unsafe class Lz4ParallelDecoder : Lz4ParallelJob
    {
        /// <summary>For the benchmark: hash the content after all blocks are decoded instead of behind the decoding.</summary>
        internal static bool HashAfterDecoding;

        /// <summary>
        /// Frames (or frame tails) that went parallel since the process started: lets a test or probe count which real
        /// buffers take the parallel path (one interlocked add per call of at least the minimum length).
        /// </summary>
        internal static long ParallelCalls;

        private Block[] _blocks = new Block[16];
        private byte* _source;
        private byte* _destination;
        private int _destinationLength;
        private int _frameOutput;
        private int _blockMaximum;
        private bool _verifyBlockChecksums;
        private bool _hashContent;
        private bool _hashBehind;
        private int _checked;
        private int _firstUnfinished;
        private XXH32.State _contentHash;

        /// <summary>
        /// Decodes as many leading blocks of the current frame as can be decoded exactly in parallel, and leaves
        /// <paramref name="reader"/> just before the first block it did not finish (or before the end mark), with
        /// <paramref name="written"/> and <paramref name="contentHash"/> advanced over the finished blocks. Does nothing
        /// when the frame has fewer than two blocks or less content than <see cref="Lz4Parallelism.MinimumLength"/>.
        /// </summary>
        internal static void DecodeLeadingBlocks(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            ref Lz4FrameReader reader,
            ref int written,
            bool verify,
            bool hashContent,
            ref XXH32.State contentHash,
            Lz4Parallelism parallelism)
        {
            Lz4FrameDescriptor frame = reader.Frame;
            int blockMaximum = frame.BlockMaximumSize;
            int checksumLength = frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int remaining = destination.Length - written;
            // A block maximum that covers the rest of the destination leaves room for one block at most: no scan.
            if (blockMaximum >= remaining)
                return;

            // How many blocks could be placed at k * blockMaximum: a block placed at or past the end of the
            // destination is only reachable if one before it was short, so it is left to the sequential loop.
            int position = reader.BytesConsumed;
            int count = 0;
            while (count < MaximumBlocks && count * (long)blockMaximum < remaining && TryNextBlock(source, position, blockMaximum, checksumLength, out int next))
            {
                count++;
                position = next;
            }
            if (count < 2 || Math.Min(count * (long)blockMaximum, remaining) < parallelism.MinimumLength)
                return;

            Interlocked.Increment(ref ParallelCalls);
            Lz4ParallelDecoder job = Lz4JobPool<Lz4ParallelDecoder>.Rent();
            try
            {
                fixed (byte* sourcePointer = source)
                fixed (byte* destinationPointer = destination)
                {
                    job.Setup(source, reader.BytesConsumed, count, checksumLength, verify && checksumLength != 0);
                    job._source = sourcePointer;
                    job._destination = destinationPointer;
                    job._destinationLength = destination.Length;
                    job._frameOutput = written;
                    job._blockMaximum = blockMaximum;
                    job._hashContent = hashContent;
                    job._hashBehind = hashContent && !HashAfterDecoding;
                    job._contentHash = contentHash;
                    job._checked = 0;
                    job._firstUnfinished = count;
                    job.Run(Math.Min(parallelism.MaxDegreeOfParallelism, count) - 1);
                }

                int finished = job._firstUnfinished;
                if (finished == 0)
                    return;
                ref Block last = ref job._blocks[finished - 1];
                written += (finished - 1) * blockMaximum + last.Decoded;
                contentHash = job._contentHash;
                reader.ResumeBeforeBlock(last.End, finished);
            }
            finally
            {
                job.ReturnToPool();
            }
        }

        /// <summary>The structure of one block, as <see cref="Lz4FrameReader"/> reads it; false on anything it would reject or on the end mark.</summary>
        private static bool TryNextBlock(ReadOnlySpan<byte> source, int position, int blockMaximum, int checksumLength, out int next)
        {
            next = 0;
            if (source.Length - position < Lz4FrameConstants.BlockHeaderLength)
                return false;
            uint field = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
            uint size = field & ~Lz4FrameConstants.UncompressedBlockFlag;
            if (field == 0 || size > (uint)blockMaximum)
                return false;
            long end = position + Lz4FrameConstants.BlockHeaderLength + (long)size + checksumLength;
            if (end > source.Length)
                return false;
            next = (int)end;
            return true;
        }

        private void Setup(ReadOnlySpan<byte> source, int position, int count, int checksumLength, bool verifyBlockChecksums)
        {
            Prepare(count);
            if (_blocks.Length < count)
                _blocks = new Block[Math.Max(count, _blocks.Length * 2)];
            for (int i = 0; i < count; i++)
            {
                uint field = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                int size = (int)(field & ~Lz4FrameConstants.UncompressedBlockFlag);
                ref Block block = ref _blocks[i];
                block.DataOffset = position + Lz4FrameConstants.BlockHeaderLength;
                block.Length = size;
                block.Uncompressed = (field & Lz4FrameConstants.UncompressedBlockFlag) != 0;
                block.End = block.DataOffset + size + checksumLength;
                block.Decoded = -1;
                position = block.End;
            }
            _verifyBlockChecksums = verifyBlockChecksums;
        }

        private void Run(int helpers)
        {
            try
            {
                StartAndClaim(helpers);
                // Every block is claimed now: walk the rest in order, waiting only for blocks that are running.
                while (_checked < Count && WaitDone(_checked))
                {
                    if (!Accept(_checked))
                        break;
                }
                if (_checked < Count)
                    _firstUnfinished = _checked;
            }
            finally
            {
                StopAndWaitForHelpers();
            }
            ThrowIfHelperFailed();
            if (_hashContent && !_hashBehind)
            {
                for (int i = 0; i < _firstUnfinished; i++)
                    XXH32.Update(ref _contentHash, new ReadOnlySpan<byte>(_destination + _frameOutput + (long)i * _blockMaximum, _blocks[i].Decoded));
            }
        }

        /// <summary>Takes block <paramref name="index"/> (done) into the result: false at the first block that is not as assumed.</summary>
        private bool Accept(int index)
        {
            ref Block block = ref _blocks[index];
            if (block.Decoded < 0 || (index < Count - 1 && block.Decoded != _blockMaximum))
            {
                _firstUnfinished = index;
                Stop();
                return false;
            }
            if (_hashBehind)
                XXH32.Update(ref _contentHash, new ReadOnlySpan<byte>(_destination + _frameOutput + (long)index * _blockMaximum, block.Decoded));
            _checked = index + 1;
            return true;
        }

        protected override void AfterCallerBlock()
        {
            // Hash (or just check) the blocks that are done, in order, between the caller's own blocks.
            while (_checked < Count && IsDone(_checked))
            {
                if (!Accept(_checked))
                    return;
            }
        }

        protected override void ProcessBlock(int index)
        {
            ref Block block = ref _blocks[index];
            var data = new ReadOnlySpan<byte>(_source + block.DataOffset, block.Length);
            if (_verifyBlockChecksums)
            {
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(new ReadOnlySpan<byte>(_source + block.DataOffset + block.Length, Lz4FrameConstants.ChecksumLength));
                if (XXH32.DigestOf(data) != expected)
                    return;
            }

            long position = _frameOutput + (long)index * _blockMaximum;
            if (position > _destinationLength)
                return;
            int remaining = _destinationLength - (int)position;
            if (block.Uncompressed)
            {
                if (data.Length > remaining)
                    return;
                data.CopyTo(new Span<byte>(_destination + position, data.Length));
                block.Decoded = data.Length;
                return;
            }

            // The same output space as the sequential path: a block maximum, or what is left when that is less. A
            // block refused in less (the sequential path retries it in scratch) is left to the sequential path.
            var window = new Span<byte>(_destination + position, Math.Min(remaining, _blockMaximum));
            block.Decoded = Lz4BlockDecoder.Decode(data, window, 0);
        }

        private void ReturnToPool()
        {
            _source = null;
            _destination = null;
            Lz4JobPool<Lz4ParallelDecoder>.Return(this);
        }

        private struct Block
        {
            public int DataOffset;
            public int Length;
            public int End;
            public int Decoded;
            public bool Uncompressed;
        }
    }
}
