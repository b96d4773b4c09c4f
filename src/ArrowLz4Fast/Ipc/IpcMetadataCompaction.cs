using System;
using System.Buffers.Binary;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Drops the unselected field nodes and buffers from a projected record batch's metadata. After the projection's
    /// rewrite (<see cref="IpcProjectedLayout.Rewrite"/>) they are dead elements at the tail of each vector; everything
    /// after a tail moves down by its length, a multiple of 16, so every alignment holds, and each offset Arrow follows
    /// across a tail is shortened by it. For a few fields of a wide batch the unselected elements are most of the
    /// metadata, which Arrow's reader would otherwise be served and copy.
    /// </summary>
    internal static class IpcMetadataCompaction
    {
        private const int ElementSize = 16;

        /// <summary>
        /// Compacts <paramref name="metadata"/>, rewritten for a projection in place after <paramref name="reader"/>
        /// walked it whole as <paramref name="message"/>; each vector is given as its first element's position, its
        /// count before the rewrite and its kept count. Returns the compacted length: the whole length for a message
        /// with custom metadata (which may lie anywhere), or whose offsets share bytes (only hostile metadata does).
        /// </summary>
        public static int Compact(Span<byte> metadata, FlatReader reader, in IpcMessage message, (int At, int Count, int Kept) nodes, (int At, int Count, int Kept) buffers)
        {
            int length = metadata.Length;
            if (message.CustomMetadata || message.Dictionary.Exists || !message.Batch.Exists)
                return length;
            (int Start, int Size) first = Tail(nodes), second = Tail(buffers);
            if (first.Start > second.Start)
                (first, second) = (second, first);
            if (first.Size + second.Size == 0)
                return length;

            // What Arrow follows: the root offset, Message.header and the batch's vectors and compression (uoffsets to
            // their targets), and each table's soffset to its vtable. The tables and vectors lie outside the tails
            // (IpcProjectedLayout.CheckWrites), so only these offsets can span one.
            FlatTable root = message.Root, batch = message.Batch;
            FlatTable compression = reader.SubTable(batch, IpcMessageParser.RecordBatchCompression, "RecordBatch.compression");
            Span<int> at = stackalloc int[9];
            Span<int> value = stackalloc int[9];
            at[0] = 0;
            at[1] = reader.Field(root, IpcMessageParser.MessageHeader, 4, "Message.header");
            at[2] = reader.Field(batch, IpcMessageParser.RecordBatchNodes, 4, "RecordBatch.nodes");
            at[3] = reader.Field(batch, IpcMessageParser.RecordBatchBuffers, 4, "RecordBatch.buffers");
            at[4] = reader.Field(batch, IpcMessageParser.RecordBatchCompression, 4, "RecordBatch.compression");
            at[5] = reader.Field(batch, IpcMessageParser.RecordBatchVariadicCounts, 4, "RecordBatch.variadicBufferCounts");
            for (int i = 0; i < 6; i++)
            {
                if (at[i] >= 0)
                    value[i] = Shift(at[i] + reader.ReadInt32(at[i]), first, second) - Shift(at[i], first, second);
            }
            (at[6], value[6]) = VTableOffset(root, first, second);
            (at[7], value[7]) = VTableOffset(batch, first, second);
            (at[8], value[8]) = VTableOffset(compression, first, second);
            for (int i = 0; i < at.Length; i++)
            {
                for (int j = i + 1; j < at.Length; j++)
                {
                    if (at[i] >= 0 && at[j] >= 0 && Math.Abs(at[i] - at[j]) < 4)
                        return length;
                }
            }
            for (int i = 0; i < at.Length; i++)
            {
                if (at[i] >= 0)
                    BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(at[i]), value[i]);
            }
            int firstEnd = first.Start + first.Size, secondEnd = second.Start + second.Size;
            metadata.Slice(firstEnd, second.Start - firstEnd).CopyTo(metadata.Slice(first.Start));
            metadata.Slice(secondEnd).CopyTo(metadata.Slice(second.Start - first.Size));
            return length - first.Size - second.Size;
        }

        /// <summary>Where a table's soffset to its vtable lies, and its value once the tails are dropped; -1 for a table absent.</summary>
        private static (int At, int Value) VTableOffset(FlatTable table, (int Start, int Size) first, (int Start, int Size) second) =>
            table.Exists ? (table.Position, Shift(table.Position, first, second) - Shift(table.VTable, first, second)) : (-1, 0);

        /// <summary>The dead elements after a vector's kept ones.</summary>
        private static (int Start, int Size) Tail((int At, int Count, int Kept) vector) =>
            vector.At > 0 ? (vector.At + (ElementSize * vector.Kept), ElementSize * (vector.Count - vector.Kept)) : (0, 0);

        /// <summary>Where <paramref name="position"/>, which lies in neither tail, is once the tails are dropped.</summary>
        private static int Shift(int position, (int Start, int Size) first, (int Start, int Size) second) =>
            position
            - (position >= first.Start + first.Size ? first.Size : 0)
            - (position >= second.Start + second.Size ? second.Size : 0);
    }
}
