using System;
using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The verifying read's check of a decoded batch (<see cref="Lz4FastOptions.VerifyOffsets"/>): the offsets of every
    /// variable-length column (binary and utf8, their large variants, list, large list, map) are as Arrow C++'s
    /// <c>ValidateFull</c> requires: the buffer holds length + 1 of them, the first is 0 or more, each is no less than the
    /// one before, and the last lies within the data buffer (binary, utf8) or the child's length (lists, maps). Arrow .NET
    /// reads offsets as they come, so a corrupt one otherwise surfaces later as an exception in the user's own code.
    /// </summary>
    internal static class IpcOffsetsVerifier
    {
        private const int NodeSize = 16;

        /// <summary>What failed: the buffer (index in the batch), the byte offset in the input, and what is wrong.</summary>
        internal readonly struct Failure
        {
            public Failure(int buffer, long offset, string what)
            {
                Buffer = buffer;
                Offset = offset;
                What = what;
            }

            public int Buffer { get; }

            public long Offset { get; }

            public string What { get; }
        }

        /// <summary>
        /// Checks the offsets of the batch decoded into <paramref name="body"/>; false with <paramref name="failure"/>
        /// at the first defect. The metadata was checked already: the batch lists at least the nodes and buffers its
        /// schema needs, each buffer lies inside the body.
        /// </summary>
        public static bool Verify(IpcSchemaColumns.Layout layout, FlatReader reader, in IpcMessage message, ReadOnlySpan<byte> body, IpcBufferItem[] items, long bodyOffset, out Failure failure)
        {
            failure = default;
            for (int c = 0; c < layout.Columns.Count; c++)
            {
                IpcSchemaColumns.Column column = layout.Columns[c];
                int width;
                bool list;
                switch (column.Type)
                {
                    case IpcSchemaColumns.Binary:
                    case IpcSchemaColumns.Utf8:
                        (width, list) = (4, false);
                        break;
                    case IpcSchemaColumns.LargeBinary:
                    case IpcSchemaColumns.LargeUtf8:
                        (width, list) = (8, false);
                        break;
                    case IpcSchemaColumns.List:
                    case IpcSchemaColumns.Map:
                        (width, list) = (4, true);
                        break;
                    case IpcSchemaColumns.LargeList:
                        (width, list) = (8, true);
                        break;
                    default:
                        continue;
                }
                if ((list && column.Node + 1 >= message.NodeCount) || column.Node >= message.NodeCount || column.FirstBuffer + column.BufferCount > message.BufferCount)
                    continue;
                long length = reader.ReadInt64(message.Nodes + (NodeSize * column.Node));
                // A list's only child is the next column, depth first.
                long limit = list
                    ? reader.ReadInt64(message.Nodes + (NodeSize * (column.Node + 1)))
                    : items[column.FirstBuffer + 2].Length;
                ref IpcBufferItem offsets = ref items[column.FirstBuffer + 1];
                if (!Check(body.Slice(offsets.Destination, offsets.Length), width, length, limit, list, out long slot, out string? what))
                {
                    // A buffer stored raw is its bytes in the input: the offset found is there. A frame's is its start.
                    long at = offsets.Raw && offsets.Length > 0 && slot >= 0
                        ? offsets.InInput(bodyOffset) + (slot * width)
                        : bodyOffset + offsets.Skipped + Math.Max(offsets.Source - 8, 0);
                    failure = new Failure(column.FirstBuffer + 1, at, what!);
                    return false;
                }
            }
            return true;
        }

        // The slot of the defect in slot (-1 for the buffer as a whole), and its description in what.
        private static bool Check(ReadOnlySpan<byte> offsets, int width, long length, long limit, bool list, out long slot, out string? what)
        {
            slot = -1;
            what = null;
            if (length <= 0)
                return true;    // negative lengths are Arrow's to refuse; an empty column may have no offsets at all
            long count = offsets.Length / width;
            if (count - 1 < length)
            {
                what = $"the offsets buffer holds {offsets.Length} byte(s), fewer than the {length} + 1 offsets of {width} bytes its field node's length needs";
                return false;
            }
            long previous = Read(offsets, 0, width);
            if (previous < 0 || previous > limit)
            {
                slot = 0;
                what = $"offset 0 is {previous}, outside 0 to {Of(list, limit)}";
                return false;
            }
            long decrease = width == 4 ? FirstDecrease32(offsets, length) : FirstDecrease64(offsets, length);
            if (decrease > 0)
            {
                slot = decrease;
                what = $"offset {decrease} is {Read(offsets, decrease, width)}, less than offset {decrease - 1} ({Read(offsets, decrease - 1, width)}): offsets must not decrease";
                return false;
            }
            previous = Read(offsets, length, width);
            if (previous > limit)
            {
                slot = length;
                what = $"the last offset (offset {length}) is {previous}, past {Of(list, limit)}";
                return false;
            }
            return true;
        }

        // The first slot 1..length whose offset is less than the one before, or -1. Offsets are little-endian, as
        // the batch's buffers are 8-byte aligned in the decoded body, and read in place.
        private static long FirstDecrease32(ReadOnlySpan<byte> offsets, long length)
        {
            if (!BitConverter.IsLittleEndian)
                return FirstDecreaseSlow(offsets, length, 4);
            ReadOnlySpan<int> values = MemoryMarshal.Cast<byte, int>(offsets.Slice(0, (int)((length + 1) * 4)));
            int previous = values[0];
            for (int i = 1; i < values.Length; i++)
            {
                int value = values[i];
                if (value < previous)
                    return i;
                previous = value;
            }
            return -1;
        }

        private static long FirstDecrease64(ReadOnlySpan<byte> offsets, long length)
        {
            if (!BitConverter.IsLittleEndian)
                return FirstDecreaseSlow(offsets, length, 8);
            ReadOnlySpan<long> values = MemoryMarshal.Cast<byte, long>(offsets.Slice(0, (int)((length + 1) * 8)));
            long previous = values[0];
            for (int i = 1; i < values.Length; i++)
            {
                long value = values[i];
                if (value < previous)
                    return i;
                previous = value;
            }
            return -1;
        }

        private static long FirstDecreaseSlow(ReadOnlySpan<byte> offsets, long length, int width)
        {
            for (long i = 1; i <= length; i++)
            {
                if (Read(offsets, i, width) < Read(offsets, i - 1, width))
                    return i;
            }
            return -1;
        }

        private static string Of(bool list, long limit) => list ? $"the child's length ({limit})" : $"the {limit}-byte data buffer";

        private static long Read(ReadOnlySpan<byte> offsets, long slot, int width) =>
            width == 4
                ? BinaryPrimitives.ReadInt32LittleEndian(offsets.Slice((int)(slot * 4)))
                : BinaryPrimitives.ReadInt64LittleEndian(offsets.Slice((int)(slot * 8)));
    }
}
