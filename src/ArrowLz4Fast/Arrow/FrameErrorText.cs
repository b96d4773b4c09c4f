using System;
using System.IO;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Reads the frame layer's "Invalid LZ4 data at byte offset N: what." messages, whose offset is within the frame the
    /// decoder was given, so that the Arrow layers can say which frame that was and where it lies.
    /// </summary>
    internal static class FrameErrorText
    {
        /// <summary>The defect without its "Invalid LZ4 data at byte offset N" head (what follows it), or null.</summary>
        public static string? Detail(InvalidDataException e, out long offset)
        {
            offset = e.InnerException is Lz4FrameException frame ? frame.Offset : -1;
            string head = "Invalid LZ4 data at byte offset " + offset.ToString(System.Globalization.CultureInfo.InvariantCulture);
            return offset >= 0 && e.Message.StartsWith(head, StringComparison.Ordinal) ? e.Message.Substring(head.Length) : null;
        }
    }
}
