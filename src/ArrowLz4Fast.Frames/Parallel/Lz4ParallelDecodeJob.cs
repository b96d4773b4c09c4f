using System;
using System.Buffers.Binary;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Decodes the blocks of an independent-block frame in parallel, straight into the destination. A frame does not
    /// promise that every block but the last is full, so block <c>k</c> is placed at <c>k * stride</c> and its
    /// decoded size is checked: the blocks up to the first one that is not exactly as assumed (short, long, corrupt,
    /// too large for its place, a bad block checksum, a structural defect) are kept, and decoding continues
    /// sequentially from that block, in <see cref="Lz4FrameDecoder"/>'s own loop. So the result is always exactly the
    /// sequential one: the same bytes, and the same exception (the lowest failing block's, thrown by the sequential
    /// code itself).
    /// </summary>
    /// <remarks>
    /// The stride is the block maximum, as every producer fills its blocks, unless the frame has more blocks than the
    /// content would fill at the maximum: then some block is short, and the frame is taken for equal pieces (the
    /// content length over the block count, rounded up to 64 bytes), which is how <see cref="Lz4FrameEncoder"/> cuts a
    /// source of one block so that it can be compressed, and so decoded, on several cores. A block is decoded into
    /// its place only (the stride, or what is left of the destination), so blocks never write over each other; a block
    /// the sequential path would have given more room and that does not fit there is left to the sequential path.
    /// </remarks>
    internal sealed unsafe class Lz4ParallelDecodeJob : Lz4BlockListJob
    {
        private byte* _source;
        private byte* _destination;
        private int _destinationLength;
        private int _frameOutput;
        private int _stride;
        private bool _verifyBlockChecksums;
        private bool _hashContent;
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
            // The frame's content, when it says, can only be shorter than the destination (concatenated frames).
            ulong? contentSize = frame.ContentSize;
            long content = contentSize is ulong declared && declared < (ulong)remaining ? (long)declared : remaining;

            // The blocks the frame's structure allows, up to its end mark.
            int position = reader.BytesConsumed;
            int blocks = 0;
            while (blocks < MaximumBlocks && TryNextBlock(source, position, blockMaximum, checksumLength, out int next))
            {
                blocks++;
                position = next;
            }
            if (blocks < 2)
                return;

            // Full blocks, unless there are more blocks than full ones would take: then equal pieces (see remarks). A
            // block placed at or past the end of the destination is only reachable if one before it was short, so it
            // is left to the sequential loop.
            long fullBlocks = (content + blockMaximum - 1) / blockMaximum;
            int stride = blockMaximum;
            if (blocks > fullBlocks)
            {
                long piece = ((content + blocks - 1) / blocks + 63) & ~63L;
                if (piece > 0 && (blocks - 1) * piece < content)
                    stride = (int)piece;
            }
            long placeable = (remaining + (long)stride - 1) / stride;
            int count = (int)Math.Min(blocks, placeable);
            if (count < 2 || Math.Min(count * (long)stride, remaining) < parallelism.MinimumLength)
                return;

            Lz4ParallelDecodeJob job = Lz4JobPool<Lz4ParallelDecodeJob>.Rent();
            try
            {
                fixed (byte* sourcePointer = source)
                fixed (byte* destinationPointer = destination)
                {
                    job.SetupBlocks(source, reader.BytesConsumed, count, checksumLength);
                    job._verifyBlockChecksums = verify && checksumLength != 0;
                    job._source = sourcePointer;
                    job._destination = destinationPointer;
                    job._destinationLength = destination.Length;
                    job._frameOutput = written;
                    job._stride = stride;
                    job._hashContent = hashContent;
                    job._contentHash = contentHash;
                    job.RunInOrder(Math.Min(parallelism.MaxDegreeOfParallelism, count) - 1);
                }

                int finished = job.Kept;
                Lz4FramesEventSource log = Lz4FramesEventSource.Log;
                if (log.IsEnabled())
                    log.ParallelDecode(count, finished);
                if (finished == 0)
                    return;
                ref Block last = ref job.Blocks[finished - 1];
                written += (finished - 1) * stride + last.Decoded;
                contentHash = job._contentHash;
                reader.ResumeBeforeBlock(last.End, finished);
            }
            finally
            {
                job.ReturnToPool();
            }
        }

        /// <summary>The structure of one block, as <see cref="Lz4FrameReader"/> reads it; false on anything it would reject or on the end mark.</summary>
        internal static bool TryNextBlock(ReadOnlySpan<byte> source, int position, int blockMaximum, int checksumLength, out int next)
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

        /// <summary>Hashes block <paramref name="index"/> (done): false at the first block that is not as assumed (short, or refused).</summary>
        protected override bool Accept(int index)
        {
            ref Block block = ref Blocks[index];
            if (block.Decoded < 0 || (index < Count - 1 && block.Decoded != _stride))
                return false;
            if (_hashContent)
                XXH32.Update(ref _contentHash, new ReadOnlySpan<byte>(_destination + _frameOutput + (long)index * _stride, block.Decoded));
            return true;
        }

        protected override void ProcessBlock(int index)
        {
            ref Block block = ref Blocks[index];
            var data = new ReadOnlySpan<byte>(_source + block.DataOffset, block.Length);
            if (_verifyBlockChecksums && !ChecksumMatches(data, new ReadOnlySpan<byte>(_source + block.DataOffset + block.Length, Lz4FrameConstants.ChecksumLength)))
                return;

            long position = _frameOutput + (long)index * _stride;
            if (position > _destinationLength)
                return;
            // The block's place: the stride, or what is left when that is less. With full blocks this is the output
            // space the sequential path gives the block; a block refused in less (the sequential path retries it in
            // scratch, or gives it up to a block maximum after a short piece) is left to the sequential path.
            int place = Math.Min(_destinationLength - (int)position, _stride);
            if (block.Uncompressed)
            {
                if (data.Length > place)
                    return;
                data.CopyTo(new Span<byte>(_destination + position, data.Length));
                block.Decoded = data.Length;
                return;
            }

            var window = new Span<byte>(_destination + position, place);
            block.Decoded = Lz4BlockDecoder.Decode(data, window, 0);
        }

        private void ReturnToPool()
        {
            _source = null;
            _destination = null;
            Lz4JobPool<Lz4ParallelDecodeJob>.Return(this);
        }
    }
}
