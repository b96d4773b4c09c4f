using System;
using System.IO;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Builds and throws the exceptions for malformed input, ThrowHelper style: every message is formatted here, out
    /// of line, so the decode loops that call these carry only a call, not the string formatting.
    /// </summary>
    internal static class Lz4FrameErrors
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(Lz4FrameErrorKind kind, long offset, string what) =>
            Create($"Invalid LZ4 data at byte offset {offset}: {what}.", kind, what, offset);

        /// <summary>The exception for corrupt data: an <see cref="InvalidDataException"/> with the offset in its <see cref="Lz4FrameException"/>.</summary>
        internal static InvalidDataException Create(string message, Lz4FrameErrorKind kind, string detail, long offset, int batchItem = -1, Exception? cause = null) =>
            new(message, new Lz4FrameException(message, kind, detail, offset, batchItem, cause));

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Throw(Lz4FrameErrorKind kind, long offset, string what) => throw At(kind, offset, what);

        /// <summary>A batch item that decodes to another length than it declares.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException BatchLength(long offset, int index, string detail) =>
            Create($"Invalid LZ4 data at byte offset {offset}: batch item {index}: {detail}.", Lz4FrameErrorKind.DecodedLength, detail, offset, index);

        /// <summary>The <see cref="Lz4FrameErrorKind.DecodedLength"/> detail of well-formed data that ends before the declared length.</summary>
        internal static string EndsEarly(long written, long declared) =>
            $"the LZ4 data ends after {written} decoded bytes but {declared} are declared";

        /// <summary>The <see cref="Lz4FrameErrorKind.DecodedLength"/> detail of well-formed data that decodes past the declared length.</summary>
        internal static string DecodesLonger(long declared) =>
            $"the LZ4 data decodes to more than the {declared} bytes declared";

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowTruncated(long offset, string what, long needed, long available) =>
            throw At(Lz4FrameErrorKind.Truncated, offset, $"input is truncated: {what} needs {needed} byte(s) but only {available} remain");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockSizeTruncated(long offset, int blockIndex, int available) =>
            ThrowTruncated(offset, $"the size field of block {blockIndex} (or the end mark)", 4, available);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockTooLarge(long offset, int blockIndex, uint size, bool uncompressed, int blockMaximum) =>
            Throw(Lz4FrameErrorKind.BlockSize, offset, $"block {blockIndex} declares {size} {(uncompressed ? "uncompressed" : "compressed")} bytes, more than the frame's {blockMaximum}-byte block maximum");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockTruncated(long offset, int blockIndex, int needed, int available) =>
            ThrowTruncated(offset, $"block {blockIndex}", needed, available);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockChecksum(long offset, int blockIndex, uint expected, uint actual, uint size) =>
            Throw(Lz4FrameErrorKind.BlockChecksum, offset, $"block {blockIndex} checksum is 0x{expected:X8} but its {size} stored bytes hash to 0x{actual:X8}");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowContentSize(long offset, ulong declared, long produced) =>
            Throw(Lz4FrameErrorKind.ContentSize, offset, $"the frame header declares a content size of {declared} bytes but its blocks decode to {produced} bytes");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowContentChecksum(long offset, uint expected, uint actual, long produced) =>
            Throw(Lz4FrameErrorKind.ContentChecksum, offset, $"content checksum is 0x{expected:X8} but the {produced} decoded bytes hash to 0x{actual:X8}");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowEmpty() => Throw(Lz4FrameErrorKind.Truncated, 0, "input is empty: an LZ4 frame starts with a 4-byte magic number");

        /// <summary>Fewer than 4 bytes where a magic number belongs: a truncated first frame, or junk after the last.</summary>
        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowShortTail(long offset, bool firstToken, long available)
        {
            if (firstToken)
                ThrowTruncated(offset, "the magic number", 4, available);
            Throw(Lz4FrameErrorKind.TrailingData, offset, $"{available} unexpected byte(s) after the last frame (too short for another frame)");
        }

        /// <summary>A magic number that is neither a frame's nor a skippable frame's; <paramref name="available"/> is all the input left.</summary>
        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBadMagic(long offset, uint magic, bool firstToken, long available)
        {
            if (magic == Lz4FrameConstants.LegacyMagic)
                Throw(Lz4FrameErrorKind.BadMagic, offset, "magic number 0x184C2102 marks the legacy LZ4 format, which is not an LZ4 frame");
            if (firstToken)
                Throw(Lz4FrameErrorKind.BadMagic, offset, $"not an LZ4 frame: magic number is 0x{magic:X8}, expected 0x184D2204");
            Throw(Lz4FrameErrorKind.TrailingData, offset, $"{available} unexpected byte(s) after the last frame (0x{magic:X8} is not a frame magic number)");
        }

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowSkippableTruncated(long offset, uint size, long available) =>
            ThrowTruncated(offset, "a skippable frame of " + size + " byte(s) of user data", size + 8L, available);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException CorruptBlock(long offset, int blockIndex, int length, int prefix, int blockMaximum)
        {
            string context = prefix > 0 ? $" (linked to the previous {prefix} bytes)" : "";
            return At(
                Lz4FrameErrorKind.MalformedBlock,
                offset,
                $"block {blockIndex} of {length} compressed bytes{context} is corrupt: it is not a valid LZ4 block decoding to at most the frame's {blockMaximum}-byte block maximum");
        }

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowDictionaryNotSupported(long frameOffset, uint? dictionaryId) =>
            throw DictionaryNotSupported(frameOffset, dictionaryId);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static NotSupportedException DictionaryNotSupported(long frameOffset, uint? dictionaryId, int batchItem = -1) =>
            DictionaryNotSupported($"The LZ4 frame at byte offset {frameOffset}", frameOffset, DictionaryDetail(dictionaryId), batchItem);

        /// <summary>
        /// The exception for a frame that names a dictionary, worded by the layer that knows where the frame lies:
        /// "<paramref name="frame"/> was compressed against …", with the defect's data in its <see cref="Lz4FrameException"/>.
        /// </summary>
        internal static NotSupportedException DictionaryNotSupported(string frame, long frameOffset, string detail, int batchItem = -1)
        {
            string message = $"{frame} was {detail}.";
            return new(message, new Lz4FrameException(message, Lz4FrameErrorKind.DictionaryRequired, detail, frameOffset, batchItem, null));
        }

        /// <summary>Why a dictionary frame is declined, without where.</summary>
        internal static string DictionaryDetail(uint? dictionaryId) =>
            $"compressed against dictionary ID 0x{dictionaryId:X8}; decoding it needs that dictionary, and none can be supplied here";
    }
}
