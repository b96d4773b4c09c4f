using System;
using System.Collections.Generic;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The irreducible work of decoding a frame into Arrow's buffer: K4os <see cref="LZ4Codec.Decode(ReadOnlySpan{byte}, Span{byte}, ReadOnlySpan{byte})"/>
    /// of blocks located in advance, straight into the destination (prefix dictionary for linked blocks), copies of
    /// uncompressed blocks, and xxHash32 of the same bytes the frame's checksums cover. No parsing, no validation.
    /// </summary>
    public sealed class CeilingDecoder
    {
        private readonly Plan[] _plans;
        private readonly OffsetZeroGuard _guard;

        public CeilingDecoder(byte[][] frames, OffsetZeroGuard guard = OffsetZeroGuard.None)
        {
            _plans = Array.ConvertAll(frames, Locate);
            _guard = guard;
        }

        /// <summary>
        /// Ways to keep K4os's output independent of the destination's old bytes (a match with offset 0 copies bytes
        /// it never wrote), measured against the decoder the project adopted instead. See README, "Decoding exactly
        /// as liblz4".
        /// </summary>
        public enum OffsetZeroGuard
        {
            /// <summary>K4os as is: the ceiling.</summary>
            None,

            /// <summary>Clear the destination before decoding, so stale bytes are zeros (what liblz4 writes).</summary>
            ClearDestination,

            /// <summary>Walk every block's sequences first and reject offset 0 before decoding.</summary>
            PrescanOffsets,

            /// <summary>The project's own block decoder (the liblz4 port) instead of K4os, over the same pre-located blocks.</summary>
            PortedDecoder,
        }

        public long Decode(byte[][] frames, byte[][] destinations)
        {
            long total = 0;
            for (int i = 0; i < frames.Length; i++)
                total += Decode(_plans[i], frames[i], destinations[i]);
            return total;
        }

        private int Decode(Plan plan, byte[] frame, byte[] destination)
        {
            if (_guard == OffsetZeroGuard.ClearDestination)
                destination.AsSpan().Clear();
            uint check = 0;
            if (plan.HeaderChecksum)
                check ^= XXH32.DigestOf(frame.AsSpan(4, plan.HeaderLength - 5));
            int written = 0;
            foreach (Block block in plan.Blocks)
            {
                ReadOnlySpan<byte> data = frame.AsSpan(block.Offset, block.Length);
                if (plan.BlockChecksum)
                    check ^= XXH32.DigestOf(data);
                if (block.Uncompressed)
                {
                    data.CopyTo(destination.AsSpan(written));
                    written += data.Length;
                    continue;
                }
                if (_guard == OffsetZeroGuard.PrescanOffsets && SequenceScan.HasOffsetZero(data))
                    throw new InvalidOperationException("offset 0");
                int prefix = plan.Linked ? Math.Min(written, 64 * 1024) : 0;
                if (_guard == OffsetZeroGuard.PortedDecoder)
                {
                    written += ArrowLz4Fast.Frames.Lz4BlockDecoder.Decode(data, destination.AsSpan(written - prefix), prefix);
                    continue;
                }
                written += prefix == 0
                    ? LZ4Codec.Decode(data, destination.AsSpan(written))
                    : LZ4Codec.Decode(data, destination.AsSpan(written), destination.AsSpan(written - prefix, prefix));
            }
            if (plan.ContentChecksum)
                check ^= XXH32.DigestOf(destination.AsSpan(0, written));
            // The hashes are folded into the result so the JIT cannot drop them.
            return written + (int)(check & 1);
        }

        private static Plan Locate(byte[] frame)
        {
            // Arrow Java and Arrow .NET hand an empty buffer to the codec as an empty source.
            if (frame.Length == 0)
                return new Plan(System.Array.Empty<Block>(), false, false, false, false, 0);
            var reader = new Lz4FrameReader(frame, verifyChecksums: false);
            var blocks = new List<Block>();
            Lz4FrameDescriptor descriptor = default;
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    descriptor = reader.Frame;
                else if (reader.TokenType == Lz4FrameTokenType.Block)
                    blocks.Add(new Block(reader.TokenStartIndex + 4, reader.BlockData.Length, reader.BlockIsUncompressed));
            }
            if (reader.FrameCount != 1)
                throw new NotSupportedException("the ceiling handles one frame per buffer, as Arrow writes");
            return new Plan(blocks.ToArray(), descriptor.IsLinked, descriptor.HasBlockChecksum, descriptor.HasContentChecksum, true, descriptor.HeaderLength);
        }

        private sealed record Plan(Block[] Blocks, bool Linked, bool BlockChecksum, bool ContentChecksum, bool HeaderChecksum, int HeaderLength);

        private readonly record struct Block(int Offset, int Length, bool Uncompressed);
    }
}
