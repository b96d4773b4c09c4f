using System;
using System.Diagnostics;
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
        /// <summary>A defect of the stream's structure (not of an LZ4 frame in it).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(long offset, string what, Exception? cause = null) =>
            At(Lz4FrameErrorKind.Container, offset, what, cause);

        /// <summary>A defect of <paramref name="kind"/>, <paramref name="what"/> being its detail.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static InvalidDataException At(Lz4FrameErrorKind kind, long offset, string what, Exception? cause = null) =>
            Invalid(new OwnError(OffsetOrigin.IpcInput, OwnErrorShape.Invalid, offset, what), kind, cause, framed: false);

        /// <summary>Valid Arrow that Arrow .NET cannot read, at an offset of the input stream.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static NotSupportedException NotSupported(long offset, string what) =>
            NotSupported(new OwnError(OffsetOrigin.IpcInput, OwnErrorShape.NotSupported, offset, what), null, framed: false);

        /// <summary>A body buffer's LZ4 frame, at <paramref name="offset"/> of the input stream, that names a dictionary.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static NotSupportedException DictionaryRequired(long offset, string detail) =>
            NotSupported(new OwnError(OffsetOrigin.IpcInput, OwnErrorShape.DictionaryRequired, offset, detail), null, framed: false);

        /// <summary>
        /// The exception <paramref name="error"/> words: its offset in the input stream, or, <paramref name="framed"/>,
        /// in the IPC stream an outer LZ4 frame decompressed to (<see cref="Lz4FramedArrow"/>).
        /// </summary>
        internal static InvalidDataException Invalid(OwnError error, Lz4FrameErrorKind kind, Exception? cause, bool framed)
        {
            Debug.Assert(error.Shape == OwnErrorShape.Invalid, "corrupt data is worded as such");
            string input = framed ? "of the IPC stream decompressed from the LZ4 frame (not of the compressed input)" : Counted(error);
            string message = $"Invalid Arrow IPC data at byte offset {error.Offset} {input}: {error.Detail}.{error.Location}";
            return error.Mark(new InvalidDataException(message, new Lz4FrameException(message, kind, error.Detail, error.Offset, cause)));
        }

        /// <summary>
        /// The <see cref="NotSupportedException"/> <paramref name="error"/> words, as <see cref="Invalid"/> does; a
        /// dictionary frame's carries its <see cref="Lz4FrameException"/> unless it rewords <paramref name="cause"/>.
        /// </summary>
        internal static NotSupportedException NotSupported(OwnError error, Exception? cause, bool framed)
        {
            string input = framed ? "of the IPC stream decompressed from the LZ4 frame" : Counted(error);
            if (error.Shape == OwnErrorShape.DictionaryRequired && cause is null)
                return error.Mark(Lz4FrameErrors.DictionaryNotSupported($"The LZ4 frame at byte offset {error.Offset} {input}", error.Offset, error.Detail));
            string message = error.Shape == OwnErrorShape.DictionaryRequired
                ? $"The LZ4 frame at byte offset {error.Offset} {input} was {error.Detail}."
                : $"Arrow .NET cannot read the Arrow IPC data at byte offset {error.Offset} {input}: {error.Detail}.";
            return error.Mark(new NotSupportedException(message, cause));
        }

        /// <summary>
        /// <paramref name="e"/>, made with an offset in the input, worded again as one in the IPC file that input is
        /// (<see cref="Lz4ArrowFileReader"/>, whose errors all count in the file); null for any other exception.
        /// </summary>
        internal static Exception? InFile(Exception e)
        {
            if (OwnError.Of(e) is not { Origin: OffsetOrigin.IpcInput } own)
                return null;
            var inFile = new OwnError(OffsetOrigin.IpcFile, own.Shape, own.Offset, own.Detail, own.Location, own.Buffer);
            if (e is InvalidDataException { InnerException: Lz4FrameException frame })
                return Invalid(inFile, frame.Kind, frame.InnerException, framed: false);
            if (e is NotSupportedException)
            {
                // A dictionary frame's own Lz4FrameException is made again with the message; any other cause is kept.
                Exception? cause = own.Shape == OwnErrorShape.DictionaryRequired && e.InnerException is Lz4FrameException ? null : e.InnerException;
                return NotSupported(inFile, cause, framed: false);
            }
            return null;
        }

        private static string Counted(OwnError error) => error.Origin == OffsetOrigin.IpcFile ? "of the IPC file" : "of the input stream";

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Throw(long offset, string what) => throw At(offset, what);

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void ThrowTruncated(long offset, string what, long needed, long read) =>
            throw At(offset, $"the stream ends inside {what}: {needed} byte(s) expected, {read} read");
    }
}
