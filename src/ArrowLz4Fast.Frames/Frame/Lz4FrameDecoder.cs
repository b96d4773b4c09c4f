using System;
using System.Buffers;
using System.IO;
using System.Runtime.CompilerServices;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Decodes LZ4 frames straight into a caller's span: each block is decoded in its final place by a port of
    /// liblz4 1.9.4's block decoder, so blocks are accepted and decoded exactly as the reference does, and linked
    /// blocks use the output already in the destination as their prefix dictionary: no intermediate buffer, no
    /// managed allocation, and no output byte that depends on what the destination held before.
    /// </summary>
    /// <remarks>
    /// The input may hold several concatenated frames and skippable frames (skipped); it must end exactly after the
    /// last frame. Validated: magic number, version, reserved bits, block size ID, header checksum, every block size
    /// against the frame's block maximum and the input, every block's decoded size against the block maximum, block
    /// and content checksums (unless <see cref="Lz4FrameDecoderOptions.VerifyChecksums"/> is off), and the content size field
    /// when present and non-zero (liblz4 reads 0 as "unknown"). A malformed or truncated input throws
    /// <see cref="InvalidDataException"/> naming the defect, with its
    /// byte offset in the <see cref="Lz4FrameException.Offset"/> of its inner exception; nothing is ever written
    /// outside the destination. Bytes of the destination past <c>bytesWritten</c> may have been scribbled on.
    /// A frame that names a dictionary stops decoding with <see cref="Lz4FrameDecodeStatus.DictionaryRequired"/>, but
    /// only after the structure of the rest of the input has been checked.
    /// </remarks>
    public static partial class Lz4FrameDecoder
    {
        /// <summary>
        /// Decodes every frame of <paramref name="source"/> into <paramref name="destination"/>, in the manner of
        /// <c>BrotliDecoder.Decompress</c>, but with malformed input reported by exception rather than status.
        /// </summary>
        /// <remarks>
        /// Not resumable: the whole input is one call. <see cref="Lz4FrameDecodeStatus.DestinationTooSmall"/> means
        /// "call again from the start with a larger destination", not "continue from <paramref name="bytesConsumed"/>"
        /// (linked blocks need the output before them, which a second call would not have).
        /// </remarks>
        /// <param name="source">One or more LZ4 frames.</param>
        /// <param name="destination">Where the decoded content goes.</param>
        /// <param name="bytesConsumed">Input consumed: all of it when done, else the offset of the frame or block that stopped decoding.</param>
        /// <param name="bytesWritten">
        /// Decoded bytes written to the start of <paramref name="destination"/>. A destination longer than the content
        /// is fine: <paramref name="bytesWritten"/> is then the content's length, shorter than the destination, and the
        /// caller decides whether that is the length it expected (the bytes after it are unspecified).
        /// </param>
        /// <param name="options">Checksum verification; the default verifies.</param>
        /// <returns><see cref="Lz4FrameDecodeStatus.Done"/>, or why decoding stopped on well-formed input.</returns>
        /// <exception cref="InvalidDataException">The input is malformed, truncated or fails a checksum (the inner <see cref="Lz4FrameException"/>'s <see cref="Lz4FrameException.Offset"/> locates the defect).</exception>
        public static Lz4FrameDecodeStatus Decode(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            out int bytesConsumed,
            out int bytesWritten,
            Lz4FrameDecoderOptions options = default)
        {
            bool verify = options.VerifyChecksums;
            var reader = new Lz4FrameReader(source, verify);
            int written = 0;
            int frameStart = 0;
            bool hashContent = false;
            XXH32.State contentHash = default;

            while (reader.Read())
            {
                switch (reader.TokenType)
                {
                    case Lz4FrameTokenType.Block:
                        int decoded = DecodeBlock(ref reader, destination, frameStart, written);
                        if (decoded < 0)
                        {
                            if (decoded != -1)
                                throw CorruptBlock(ref reader, written, frameStart);
                            bytesConsumed = reader.TokenStartIndex;
                            bytesWritten = written;
                            return Lz4FrameDecodeStatus.DestinationTooSmall;
                        }
                        if (hashContent)
                            XXH32.Update(ref contentHash, destination.Slice(written, decoded));
                        written += decoded;
                        break;

                    case Lz4FrameTokenType.FrameHeader:
                        Lz4FrameDescriptor frame = reader.Frame;
                        if (frame.HasDictionaryId)
                        {
                            int dictionaryFrame = reader.TokenStartIndex;
                            ValidateRest(ref reader);
                            bytesConsumed = dictionaryFrame;
                            bytesWritten = written;
                            return Lz4FrameDecodeStatus.DictionaryRequired;
                        }
                        frameStart = written;
                        hashContent = verify && frame.HasContentChecksum;
                        if (hashContent)
                            XXH32.Reset(ref contentHash);
                        if (options.Parallelism.IsParallel && !frame.IsLinked && destination.Length - written >= options.Parallelism.MinimumLength)
                            Lz4ParallelDecodeJob.DecodeLeadingBlocks(source, destination, ref reader, ref written, verify, hashContent, ref contentHash, options.Parallelism);
                        break;

                    case Lz4FrameTokenType.FrameEnd:
                        CheckFrameEnd(ref reader, written - frameStart, hashContent, ref contentHash);
                        break;
                }
            }

            bytesConsumed = reader.BytesConsumed;
            bytesWritten = written;
            return Lz4FrameDecodeStatus.Done;
        }

        /// <summary>
        /// Decodes every frame of <paramref name="source"/> into <paramref name="destination"/> with the promise of
        /// <c>BrotliDecoder.TryDecompress</c>: <see langword="false"/> on any failure, never an exception for the data.
        /// </summary>
        /// <remarks>
        /// Malformed input, a frame that names a dictionary and a destination too small all return
        /// <see langword="false"/>; call <see cref="Decode(ReadOnlySpan{byte}, Span{byte}, out int, out int, Lz4FrameDecoderOptions)"/> to learn which, and where (the
        /// <see cref="Lz4FrameException"/> inside its exception has the offset). Not resumable.
        /// </remarks>
        /// <param name="source">One or more LZ4 frames.</param>
        /// <param name="destination">Where the decoded content goes.</param>
        /// <param name="bytesWritten">
        /// Decoded bytes written to the start of <paramref name="destination"/>, which may be fewer than its length when
        /// it has room to spare (the bytes after them are unspecified); 0 when the method returns <see langword="false"/>.
        /// </param>
        /// <param name="options">Checksum verification; the default verifies.</param>
        /// <returns><see langword="true"/> when every frame decoded, complete and checked, into <paramref name="destination"/>.</returns>
        public static bool TryDecode(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            out int bytesWritten,
            Lz4FrameDecoderOptions options = default)
        {
            try
            {
                if (Decode(source, destination, out _, out bytesWritten, options) == Lz4FrameDecodeStatus.Done)
                    return true;
            }
            catch (InvalidDataException)
            {
                // Corrupt input is rare; paying for an exception here keeps the decode loops free of error plumbing.
            }
            bytesWritten = 0;
            return false;
        }

        internal static NotSupportedException DictionaryNotSupported(ReadOnlySpan<byte> source, int frameOffset) =>
            Lz4FrameErrors.DictionaryNotSupported(frameOffset, Lz4FrameDescriptor.Read(source, frameOffset).DictionaryId);

        /// <summary>Decodes the current block at <paramref name="written"/>: its length, -1 when it does not fit, -2 when it is corrupt.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static int DecodeBlock(ref Lz4FrameReader reader, Span<byte> destination, int frameStart, int written)
        {
            ReadOnlySpan<byte> data = reader.BlockData;
            int remaining = destination.Length - written;
            if (reader.BlockIsUncompressed)
            {
                if (data.Length > remaining)
                    return -1;
                data.CopyTo(destination.Slice(written));
                return data.Length;
            }

            // liblz4's frame decoder gives every block exactly the block maximum of output space; so do we whenever
            // the destination has it. The window starts at the prefix: the previous output of a linked frame.
            int blockMaximum = reader.Frame.BlockMaximumSize;
            int prefix = reader.Frame.IsLinked ? Math.Min(written - frameStart, Lz4FrameConstants.WindowSize) : 0;
            Span<byte> window = destination.Slice(written - prefix, prefix + Math.Min(remaining, blockMaximum));
            int decoded = Lz4BlockDecoder.Decode(data, window, prefix);
            if (decoded >= 0)
                return decoded;
            return remaining >= blockMaximum ? -2 : DecodeShort(ref reader, destination, written, prefix);
        }

        /// <summary>
        /// A block refused in less than a block maximum of space (the last block of an exact-length destination):
        /// decoded again with the full block maximum, as liblz4 would, it is either corrupt or does not fit, or it
        /// fits after all, because the end-of-block rules it broke only apply near the end of the output space.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int DecodeShort(ref Lz4FrameReader reader, Span<byte> destination, int written, int prefix)
        {
            int blockMaximum = reader.Frame.BlockMaximumSize;
            byte[] scratch = ArrayPool<byte>.Shared.Rent(prefix + blockMaximum);
            try
            {
                destination.Slice(written - prefix, prefix).CopyTo(scratch);
                int decoded = Lz4BlockDecoder.Decode(reader.BlockData, scratch.AsSpan(0, prefix + blockMaximum), prefix);
                if (decoded < 0)
                    return -2;
                if (decoded > destination.Length - written)
                    return -1;
                scratch.AsSpan(prefix, decoded).CopyTo(destination.Slice(written));
                return decoded;
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(scratch);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static InvalidDataException CorruptBlock(ref Lz4FrameReader reader, int written, int frameStart)
        {
            int prefix = reader.Frame.IsLinked ? Math.Min(written - frameStart, Lz4FrameConstants.WindowSize) : 0;
            return Lz4FrameErrors.CorruptBlock(reader.TokenStartIndex, reader.BlockIndex, reader.BlockData.Length, prefix, reader.Frame.BlockMaximumSize);
        }

        /// <summary>
        /// A frame that names a dictionary cannot be decoded, but the rest of the input can still be checked: its
        /// structure (headers, block sizes, block checksums, trailing bytes) is walked so that corrupt input is
        /// reported as corrupt, whatever frame comes first.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ValidateRest(ref Lz4FrameReader reader)
        {
            while (reader.Read())
            {
            }
        }

        private static void CheckFrameEnd(ref Lz4FrameReader reader, int produced, bool hashContent, ref XXH32.State contentHash)
        {
            Lz4FrameDescriptor frame = reader.Frame;
            if (frame.ContentSize is ulong size && size != 0 && size != (ulong)produced)
            {
                Lz4FrameErrors.ThrowContentSize(reader.FrameStartIndex + 6, size, produced);
            }
            if (hashContent)
            {
                uint actual = XXH32.Digest(in contentHash);
                uint expected = reader.ContentChecksum.GetValueOrDefault();
                if (actual != expected)
                {
                    Lz4FrameErrors.ThrowContentChecksum(reader.TokenStartIndex + Lz4FrameConstants.EndMarkLength, expected, actual, produced);
                }
            }
        }
    }
}
