using System;
using System.IO;
using System.Runtime.CompilerServices;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Builds the exceptions for malformed input. Every message names the defect and its byte offset, and the
    /// offset is also in <see cref="Exception.Data"/> under <see cref="OffsetKey"/> for callers that log it.
    /// Kept out of line so the decode loops stay small.
    /// </summary>
    public static class Lz4FrameErrors
    {
        /// <summary>Key in <see cref="Exception.Data"/> holding the byte offset (an <see cref="int"/>) of the defect.</summary>
        public const string OffsetKey = "ArrowLz4Fast.Offset";

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(int offset, string what)
        {
            var e = new InvalidDataException($"Invalid LZ4 data at byte offset {offset}: {what}.");
            e.Data[OffsetKey] = offset;
            return e;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException Truncated(int offset, string what, int needed, int available) =>
            At(offset, $"input is truncated: {what} needs {needed} byte(s) but only {available} remain");

        /// <summary>Reads the offset recorded in an exception from this package, if there is one.</summary>
        /// <param name="exception">An exception thrown by a decoder of this package.</param>
        /// <param name="offset">The byte offset of the defect in the decoder's input.</param>
        /// <returns><see langword="true"/> when the exception carries an offset.</returns>
        public static bool TryGetOffset(Exception exception, out int offset)
        {
            if (exception is null) throw new ArgumentNullException(nameof(exception));
            if (exception.Data[OffsetKey] is int value)
            {
                offset = value;
                return true;
            }
            offset = -1;
            return false;
        }
    }
}
