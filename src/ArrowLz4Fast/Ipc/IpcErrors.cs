using System;
using System.Diagnostics.CodeAnalysis;
using System.IO;
using System.Runtime.CompilerServices;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The exceptions of <see cref="IpcDecompressingStream"/>: an <see cref="InvalidDataException"/> whose inner
    /// <see cref="Lz4FrameException"/> carries the byte offset of the defect in the input stream, as the codec reports
    /// offsets in a frame.
    /// </summary>
    internal static class IpcErrors
    {
        private const string Head = "Invalid Arrow IPC data at byte offset ";
        private const string OfInput = " of the input stream: ";

        /// <summary>Whether <paramref name="e"/> is one of these, at <paramref name="offset"/> (not one its input stream threw).</summary>
        internal static bool IsOwn(Exception e, long offset) =>
            e.Message.StartsWith(Head + offset.ToString(System.Globalization.CultureInfo.InvariantCulture) + OfInput, StringComparison.Ordinal);

        /// <summary>A defect of the stream's structure (not of an LZ4 frame in it).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(long offset, string what, Exception? cause = null) =>
            At(Lz4FrameErrorKind.Container, offset, what, cause);

        /// <summary>A defect of <paramref name="kind"/>, <paramref name="what"/> being its detail.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(Lz4FrameErrorKind kind, long offset, string what, Exception? cause = null)
        {
            string message = $"{Head}{offset}{OfInput}{what}.";
            return new InvalidDataException(message, new Lz4FrameException(message, kind, what, offset, cause));
        }

        /// <summary>Valid Arrow that Arrow .NET cannot read, at an offset of the input stream.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static NotSupportedException NotSupported(long offset, string what) =>
            new NotSupportedException($"Arrow .NET cannot read the Arrow IPC data at byte offset {offset} of the input stream: {what}.");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Throw(long offset, string what) => throw At(offset, what);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowTruncated(long offset, string what, long needed, long read) =>
            throw At(offset, $"the stream ends inside {what}: {needed} byte(s) expected, {read} read");
    }
}
