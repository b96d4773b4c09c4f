using System;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>Decodes one body buffer into its place, with errors at their offset in the input stream.</summary>
    internal static class IpcBufferDecoder
    {
        public static void Decode(ReadOnlySpan<byte> body, Span<byte> destination, in IpcBufferItem item, long bodyOffset, Lz4FrameDecoderOptions options)
        {
            Debug.Assert(item.Length >= 0 && item.SourceLength >= 0 && (!item.Raw || item.SourceLength == item.Length), "a laid-out buffer: raw ones are stored as they decode");
            Span<byte> output = destination.Slice(item.Destination, item.Length);
            ReadOnlySpan<byte> input = body.Slice(item.Source, item.SourceLength);
            if (item.Raw)
            {
                input.CopyTo(output);
                return;
            }
            // Arrow .NET and Arrow Java write an empty buffer as a bare 0 prefix with no frame.
            if (input.IsEmpty)
            {
                if (!output.IsEmpty)
                    IpcErrors.Throw(item.InInput(bodyOffset), $"the buffer holds no LZ4 frame but {output.Length} decoded bytes are expected");
                return;
            }

            Lz4FrameDecodeStatus status;
            int consumed, written;
            try
            {
                status = Lz4FrameDecoder.Decode(input, output, out consumed, out written, options);
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
            {
                throw Invalid(in item, bodyOffset, frame, Math.Max(frame.Offset, 0), e);
            }
            switch (status)
            {
                case Lz4FrameDecodeStatus.Done:
                    if (written != output.Length)
                        ThrowLength(item.InInput(bodyOffset) + consumed, Lz4FrameErrors.EndsEarly(written, output.Length));
                    return;
                case Lz4FrameDecodeStatus.DestinationTooSmall:
                    ThrowLength(item.InInput(bodyOffset) + consumed, Lz4FrameErrors.DecodesLonger(output.Length));
                    return;
                default:
                    throw DictionaryRequired(in item, bodyOffset, consumed, Lz4FrameErrors.DictionaryDetail(Lz4FrameDescriptor.Read(input, consumed).DictionaryId));
            }
        }

        /// <summary>
        /// The stream's exception for a frame error in <paramref name="item"/>, from its data: <paramref name="frameOffset"/>
        /// counts from the buffer's first byte.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static Exception Invalid(in IpcBufferItem item, long bodyOffset, Lz4FrameException frame, long frameOffset, Exception cause)
        {
            Debug.Assert(frameOffset >= 0 && frameOffset <= item.SourceLength, "a frame error lies within its buffer's bytes");
            if (frame.Kind == Lz4FrameErrorKind.DictionaryRequired)
                return DictionaryRequired(in item, bodyOffset, frameOffset, frame.Detail);
            long at = item.InInput(bodyOffset) + frameOffset;
            if (frame.Kind == Lz4FrameErrorKind.DecodedLength)
                return IpcErrors.At(Lz4FrameErrorKind.DecodedLength, at, frame.Detail, cause);
            return IpcErrors.At(
                frame.Kind,
                at,
                $"the body buffer's LZ4 frame is invalid at byte offset {frameOffset} within it: {frame.Detail}",
                cause);
        }

        private static NotSupportedException DictionaryRequired(in IpcBufferItem item, long bodyOffset, long frameOffset, string detail) =>
            IpcErrors.DictionaryRequired(item.InInput(bodyOffset) + frameOffset, detail);

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowLength(long offset, string what) => throw IpcErrors.At(Lz4FrameErrorKind.DecodedLength, offset, what);
    }
}
