using System;
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
                    IpcErrors.Throw(bodyOffset + item.Source, $"the buffer holds no LZ4 frame but {output.Length} decoded bytes are expected");
                return;
            }

            Lz4FrameDecodeStatus status;
            int consumed, written;
            try
            {
                status = Lz4FrameDecoder.Decode(input, output, out consumed, out written, options);
            }
            catch (InvalidDataException e)
            {
                string? what = FrameErrorText.Detail(e, out long frameOffset);
                frameOffset = Math.Max(frameOffset, 0);
                throw IpcErrors.At(bodyOffset + item.Source + frameOffset, what is null
                    ? $"the LZ4 frame of the body buffer at byte offset {bodyOffset + item.Source} is invalid: {e.Message}"
                    : $"the LZ4 frame of the body buffer at byte offset {bodyOffset + item.Source} is invalid at byte offset {frameOffset} within that frame{what.TrimEnd('.')}", e);
            }
            switch (status)
            {
                case Lz4FrameDecodeStatus.Done:
                    if (written != output.Length)
                        ThrowLength(bodyOffset + item.Source + consumed, $"the LZ4 data ends after {written} decoded bytes but the buffer declares {output.Length}");
                    return;
                case Lz4FrameDecodeStatus.DestinationTooSmall:
                    ThrowLength(bodyOffset + item.Source + consumed, $"the LZ4 data decodes to more than the {output.Length} bytes the buffer declares");
                    return;
                default:
                    throw new NotSupportedException($"The LZ4 frame at byte offset {bodyOffset + item.Source} of the input stream was compressed against a dictionary; decoding it needs that dictionary, and none can be supplied here.");
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowLength(long offset, string what) => IpcErrors.Throw(offset, what);
    }
}
