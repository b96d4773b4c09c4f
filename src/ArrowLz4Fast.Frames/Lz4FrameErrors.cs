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
        internal static InvalidDataException At(long offset, string what) => Create($"Invalid LZ4 data at byte offset {offset}: {what}.", offset);

        /// <summary>The exception for corrupt data: an <see cref="InvalidDataException"/> with the offset in its <see cref="Lz4FrameException"/>.</summary>
        internal static InvalidDataException Create(string message, long offset, Exception? cause = null) =>
            new(message, new Lz4FrameException(message, offset, cause));

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Throw(long offset, string what) => throw At(offset, what);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowTruncated(long offset, string what, long needed, long available) =>
            throw At(offset, $"input is truncated: {what} needs {needed} byte(s) but only {available} remain");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockSizeTruncated(int offset, int blockIndex, int available) =>
            ThrowTruncated(offset, $"the size field of block {blockIndex} (or the end mark)", 4, available);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockTooLarge(int offset, int blockIndex, uint size, bool uncompressed, int blockMaximum) =>
            Throw(offset, $"block {blockIndex} declares {size} {(uncompressed ? "uncompressed" : "compressed")} bytes, more than the frame's {blockMaximum}-byte block maximum");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockTruncated(int offset, int blockIndex, int needed, int available) =>
            ThrowTruncated(offset, $"block {blockIndex}", needed, available);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowBlockChecksum(int offset, int blockIndex, uint expected, uint actual, uint size) =>
            Throw(offset, $"block {blockIndex} checksum is 0x{expected:X8} but its {size} stored bytes hash to 0x{actual:X8}");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowContentSize(int offset, ulong declared, int produced) =>
            Throw(offset, $"the frame header declares a content size of {declared} bytes but its blocks decode to {produced} bytes");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowContentChecksum(int offset, uint expected, uint actual, int produced) =>
            Throw(offset, $"content checksum is 0x{expected:X8} but the {produced} decoded bytes hash to 0x{actual:X8}");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowDictionaryNotSupported(long frameOffset, uint? dictionaryId) =>
            throw DictionaryNotSupported(frameOffset, dictionaryId);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static NotSupportedException DictionaryNotSupported(long frameOffset, uint? dictionaryId) =>
            new($"The LZ4 frame at byte offset {frameOffset} was compressed against dictionary ID 0x{dictionaryId:X8}; decoding it needs that dictionary, and none can be supplied here.");
    }
}
