using System;
using System.IO;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4.Streams;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The official path (Apache.Arrow.Compression's <c>LZ4Frame.Decode</c> + <c>ReadManyBytes</c>) for frames the
    /// direct decoder declines, with its failures turned into the exception types the codec promises.
    /// </summary>
    internal static class Lz4Fallback
    {
        public static int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination, int frameOffset, string reason)
        {
            ArrowLz4FastMetrics.RecordFallback(reason);
            int written;
            try
            {
                using var decoder = LZ4Frame.Decode(source);
                written = decoder.ReadManyBytes(destination.Span);
                if (written == destination.Length && decoder.ReadOneByte() >= 0)
                    written = -1;
            }
            catch (NotImplementedException e)
            {
                // K4os refuses dictionary frames with NotImplementedException; say which frame and why.
                throw new NotSupportedException(Lz4FrameDecoder.DictionaryNotSupported(source.Span, frameOffset).Message, e);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                throw Lz4FrameErrors.At(frameOffset, $"the fallback decoder (K4os LZ4Frame) rejected the frame: {e.Message}");
            }

            if (written != destination.Length)
            {
                throw Lz4FrameErrors.At(frameOffset, written < 0
                    ? $"the LZ4 data decodes to more than the {destination.Length} bytes the Arrow buffer declares"
                    : $"the LZ4 data ends after {written} decoded bytes but the Arrow buffer declares {destination.Length}");
            }
            ArrowLz4FastMetrics.RecordFallbackBytes(written);
            return written;
        }
    }
}
