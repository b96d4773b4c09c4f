using System;
using System.Buffers;
using System.Buffers.Binary;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Compresses the blocks of one frame in parallel, byte-identical to <see cref="Lz4FrameEncoder"/>'s sequential
    /// loop. Compressed sizes are not known in advance, so every block is compressed with the output limit the
    /// sequential loop gives it whenever the destination has room (its own length minus one, which makes K4os give up
    /// on a block that does not shrink) into a slot of its own (in the destination, at the offset the block would have
    /// if every block before it were stored raw, or in pooled scratch for the last blocks whose slot would end past
    /// the destination), and the calling thread moves finished blocks down into place, in order, behind the
    /// compression. A block whose sequential limit would be smaller (the destination is nearly full) and
    /// every block after it are encoded by the sequential loop itself, so the output never depends on the schedule.
    /// </summary>
    internal sealed unsafe class Lz4ParallelEncodeJob : Lz4ParallelJob
    {
        private const int Continue = 0;
        private const int Sequential = 1;
        private const int DoesNotFit = 2;

        private Block[] _blocks = new Block[16];
        private byte* _source;
        private int _sourceLength;
        private byte* _destination;
        private int _destinationLength;
        private byte* _scratch;
        private int _firstScratchBlock;
        private int _headerLength;
        private int _blockSize;
        private int _checksumLength;
        private LZ4Level _level;
        private bool _contentChecksum;

        // The placement, on the calling thread only.
        private int _placed;
        private int _position;
        private int _outcome;
        private XXH32.State _contentHash;

        /// <summary>Encodes every block of <paramref name="source"/> after the header already written, and the end mark.</summary>
        internal static bool TryEncodeBlocks(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            int headerLength,
            int blockSize,
            out int bytesWritten,
            Lz4FrameEncoderOptions options)
        {
            bytesWritten = 0;
            int count = (int)((source.Length + (long)blockSize - 1) / blockSize);
            int checksumLength = options.BlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            if (count > MaximumBlocks)
            {
                int end = headerLength;
                XXH32.State hash = default;
                if (options.ContentChecksum)
                    XXH32.Reset(ref hash);
                return Lz4FrameEncoder.EncodeBlocks(source, destination, 0, blockSize, ref end, ref hash, options)
                    && Lz4FrameEncoder.TryWriteEnd(destination, end, options, ref hash, out bytesWritten);
            }

            // Block k's slot starts where it would if every block before it were stored raw at the full block
            // maximum, so its final place is never after its slot; slots that would end past the destination go to
            // scratch.
            int firstScratchBlock = 0;
            while (firstScratchBlock < count
                && SlotOffset(headerLength, firstScratchBlock, blockSize, checksumLength) + BlockLength(source.Length, firstScratchBlock, blockSize) - 1 <= destination.Length)
            {
                firstScratchBlock++;
            }
            long scratchLength = (count - firstScratchBlock) * (long)blockSize;

            Lz4FramesEventSource log = Lz4FramesEventSource.Log;
            if (log.IsEnabled())
                log.ParallelEncode(count);
            Lz4ParallelEncodeJob job = Lz4JobPool<Lz4ParallelEncodeJob>.Rent();
            byte[]? scratch = scratchLength > 0 ? ArrayPool<byte>.Shared.Rent((int)scratchLength) : null;
            try
            {
                fixed (byte* sourcePointer = source)
                fixed (byte* destinationPointer = destination)
                fixed (byte* scratchPointer = scratch)
                {
                    job.Setup(count);
                    job._source = sourcePointer;
                    job._sourceLength = source.Length;
                    job._destination = destinationPointer;
                    job._destinationLength = destination.Length;
                    job._scratch = scratchPointer;
                    job._firstScratchBlock = firstScratchBlock;
                    job._headerLength = headerLength;
                    job._blockSize = blockSize;
                    job._checksumLength = checksumLength;
                    job._level = (LZ4Level)options.Level;
                    job._contentChecksum = options.ContentChecksum;
                    job._placed = 0;
                    job._position = headerLength;
                    job._outcome = Continue;
                    if (options.ContentChecksum)
                        XXH32.Reset(ref job._contentHash);
                    job.Run(Math.Min(options.Parallelism.MaxDegreeOfParallelism, count) - 1);
                }

                if (job._outcome == DoesNotFit)
                    return false;
                int position = job._position;
                XXH32.State contentHash = job._contentHash;
                if (job._outcome == Sequential
                    && !Lz4FrameEncoder.EncodeBlocks(source, destination, job._placed, blockSize, ref position, ref contentHash, options))
                {
                    return false;
                }
                return Lz4FrameEncoder.TryWriteEnd(destination, position, options, ref contentHash, out bytesWritten);
            }
            finally
            {
                job.ReturnToPool();
                if (scratch != null)
                    ArrayPool<byte>.Shared.Return(scratch);
            }
        }

        private static long SlotOffset(int headerLength, int index, int blockSize, int checksumLength) =>
            headerLength + index * (long)(Lz4FrameConstants.BlockHeaderLength + blockSize + checksumLength) + Lz4FrameConstants.BlockHeaderLength;

        private static int BlockLength(int sourceLength, int index, int blockSize) =>
            (int)Math.Min(blockSize, sourceLength - index * (long)blockSize);

        private void Setup(int count)
        {
            Prepare(count);
            if (_blocks.Length < count)
                _blocks = new Block[Math.Max(count, _blocks.Length * 2)];
        }

        private void Run(int helpers)
        {
            try
            {
                StartAndClaim(helpers);
                // Every block is claimed now: place the rest in order, waiting only for blocks that are running.
                while (_outcome == Continue && _placed < Count && WaitDone(_placed))
                    PlaceNext();
            }
            finally
            {
                StopAndWaitForHelpers();
            }
            ThrowIfHelperFailed();
        }

        protected override void AfterCallerBlock()
        {
            while (_outcome == Continue && _placed < Count && IsDone(_placed))
                PlaceNext();
        }

        /// <summary>Places block <see cref="_placed"/> (done) exactly where and as the sequential loop would write it.</summary>
        private void PlaceNext()
        {
            int index = _placed;
            ref Block block = ref _blocks[index];
            int length = BlockLength(_sourceLength, index, _blockSize);
            int room = _destinationLength - _position - Lz4FrameConstants.BlockHeaderLength - _checksumLength;
            if (room < length - 1)
            {
                // The sequential loop would give this block a smaller output limit, which can change K4os's output:
                // it and the rest go through the sequential loop (room <= 0 included: it returns false there).
                _outcome = Sequential;
                Stop();
                return;
            }

            byte* source = _source + (long)index * _blockSize;
            if (_contentChecksum)
                XXH32.Update(ref _contentHash, new ReadOnlySpan<byte>(source, length));
            byte* target = _destination + _position + Lz4FrameConstants.BlockHeaderLength;
            int stored = block.Stored;
            uint sizeField;
            if (stored > 0)
            {
                Buffer.MemoryCopy(block.Output, target, stored, stored);
                sizeField = (uint)stored;
            }
            else
            {
                if (length > room)
                {
                    _outcome = DoesNotFit;
                    Stop();
                    return;
                }
                Buffer.MemoryCopy(source, target, length, length);
                stored = length;
                sizeField = (uint)stored | Lz4FrameConstants.UncompressedBlockFlag;
            }

            BinaryPrimitives.WriteUInt32LittleEndian(new Span<byte>(_destination + _position, Lz4FrameConstants.BlockHeaderLength), sizeField);
            _position += Lz4FrameConstants.BlockHeaderLength + stored;
            if (_checksumLength != 0)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(new Span<byte>(_destination + _position, Lz4FrameConstants.ChecksumLength), block.Checksum);
                _position += _checksumLength;
            }
            _placed = index + 1;
        }

        protected override void ProcessBlock(int index)
        {
            ref Block block = ref _blocks[index];
            int length = BlockLength(_sourceLength, index, _blockSize);
            byte* source = _source + (long)index * _blockSize;
            byte* output = index < _firstScratchBlock
                ? _destination + SlotOffset(_headerLength, index, _blockSize, _checksumLength)
                : _scratch + (long)(index - _firstScratchBlock) * _blockSize;
            // The sequential limit whenever the destination has room for it; PlaceNext checks that it had.
            int limit = length - 1;
            int stored = limit <= 0 ? -1
                : Lz4ParallelHelpers.IsHelperThread ? EncodeViaHelperScratch(source, length, output, limit)
                : Lz4BlockEncoder.Encode(source, length, output, limit, _level);
            block.Output = output;
            block.Stored = stored;
            if (_checksumLength != 0)
                block.Checksum = XXH32.DigestOf(stored > 0 ? new ReadOnlySpan<byte>(output, stored) : new ReadOnlySpan<byte>(source, length));
        }

        /// <summary>
        /// On a helper thread: compresses into the helper's own buffer, then copies the result into the block's slot.
        /// The caller reads every slot when it places a block, so compressing straight into a slot makes each helper
        /// store wait on the caller's core; a plain copy streams those stores instead (docs/threading.md).
        /// </summary>
        private int EncodeViaHelperScratch(byte* source, int length, byte* output, int limit)
        {
            byte[] scratch = Lz4ParallelHelpers.Scratch(limit);
            fixed (byte* own = scratch)
            {
                int stored = Lz4BlockEncoder.Encode(source, length, own, limit, _level);
                if (stored > 0)
                    Buffer.MemoryCopy(own, output, stored, stored);
                return stored;
            }
        }

        private void ReturnToPool()
        {
            _source = null;
            _destination = null;
            _scratch = null;
            Lz4JobPool<Lz4ParallelEncodeJob>.Return(this);
        }

        private struct Block
        {
            public byte* Output;
            public int Stored;
            public uint Checksum;
        }
    }
}
