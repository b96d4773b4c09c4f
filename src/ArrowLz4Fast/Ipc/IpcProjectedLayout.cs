using System;
using System.Buffers.Binary;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The in-place rewrite of a record batch's metadata for a projection: the kept field nodes move to the front of
    /// the nodes vector, the kept buffers (with their offsets in the compacted body) to the front of the buffers
    /// vector, both lengths lowered, and bodyLength set to the compacted body's. Nothing else moves, so every table and
    /// uoffset stays as it was verified.
    /// </summary>
    internal static class IpcProjectedLayout
    {
        /// <summary>
        /// Refuses metadata in which the bytes the rewrite writes (the two vectors with their length words, bodyLength)
        /// overlap one another or anything else Arrow reads of a batch: tables, vtables, the compression and variadic
        /// fields. Only hostile metadata places them so; writing it would change what was verified.
        /// </summary>
        public static void CheckWrites(FlatReader reader, in IpcMessage message, int nodes, int nodeCount, int buffers, int bufferCount)
        {
            FlatTable root = message.Root, batch = message.Batch, dictionary = message.Dictionary;
            FlatTable compression = reader.SubTable(batch, IpcMessageParser.RecordBatchCompression, "RecordBatch.compression");
            (int variadic, int variadicCount) = reader.Vector(batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
            Span<(long Start, long End)> read = stackalloc (long, long)[]
            {
                (0, 4),
                (root.VTable, root.VTable + root.VTableSize),
                (root.Position, root.Position + root.TableSize),
                (dictionary.VTable, dictionary.VTable + dictionary.VTableSize),
                (dictionary.Position, dictionary.Position + dictionary.TableSize),
                (batch.VTable, batch.VTable + batch.VTableSize),
                (batch.Position, batch.Position + batch.TableSize),
                (compression.VTable, compression.VTable + compression.VTableSize),
                (compression.Position, compression.Position + compression.TableSize),
                (variadic - 4, variadic + (8L * variadicCount)),
            };
            Span<(long Start, long End)> written = stackalloc (long, long)[]
            {
                (nodes - 4, nodes + (16L * nodeCount)),
                (buffers - 4, buffers + ((long)IpcMessageParser.BufferStructSize * bufferCount)),
                message.BodyLengthField >= 0 ? (message.BodyLengthField, message.BodyLengthField + 8L) : (0, 0),
            };
            const int rootTable = 2;
            for (int w = 0; w < written.Length; w++)
            {
                (long start, long end) = written[w];
                if (end <= start || start < 0)
                    continue;
                for (int r = 0; r < read.Length; r++)
                {
                    // bodyLength is a field of the Message table.
                    if (w == 2 && r == rootTable)
                        continue;
                    if (read[r].End > read[r].Start && read[r].Start < end && start < read[r].End)
                        ThrowOverlap(reader);
                }
                for (int o = w + 1; o < written.Length; o++)
                {
                    if (written[o].End > written[o].Start && written[o].Start < end && start < written[o].End)
                        ThrowOverlap(reader);
                }
            }
        }

        /// <summary>Writes the projected vectors and bodyLength into <paramref name="metadata"/>; the gather items hold the kept buffers in order.</summary>
        public static void Rewrite(Span<byte> metadata, IpcProjectionPlan plan, int nodes, int buffers, IpcBufferItem[] kept, int keptCount, int bodyLengthField, long bodyLength)
        {
            if (nodes > 0)
            {
                int to = 0;
                foreach ((int start, int count) in plan.NodeRanges)
                {
                    // Moving down within the vector: a span copy handles the overlap.
                    metadata.Slice(nodes + (16 * start), 16 * count).CopyTo(metadata.Slice(nodes + (16 * to)));
                    to += count;
                }
                BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(nodes - 4), plan.Nodes);
            }
            for (int i = 0; i < keptCount; i++)
            {
                int slot = buffers + (i * IpcMessageParser.BufferStructSize);
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(slot), kept[i].Destination);
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(slot + 8), kept[i].SourceLength);
            }
            if (buffers > 0)
                BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(buffers - 4), plan.Buffers);
            if (bodyLengthField >= 0)
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(bodyLengthField), bodyLength);
        }

        /// <summary>Parses the rewritten metadata again: the same kind of message, with the projected counts and body length; returns what it found.</summary>
        public static IpcMessage CheckReadsBack(byte[] buffer, int start, int length, long inputOffset, in IpcMessage original, IpcProjectionPlan plan, long bodyLength)
        {
            var reader = new FlatReader(buffer, start, length, inputOffset);
            IpcMessage check = IpcMessageParser.Parse(reader, buffers: true);
            (_, int nodeCount) = reader.Vector(check.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            bool same = check.HeaderType == original.HeaderType && check.Lz4 == original.Lz4 && check.Compressed == original.Compressed
                && check.BodyLength == bodyLength && check.BufferCount == plan.Buffers && nodeCount == plan.Nodes;
            if (!same)
                ThrowOverlap(reader);
            return check;
        }

        private static void ThrowOverlap(FlatReader reader) =>
            IpcErrors.Throw(reader.InputOffset(0), "message metadata, the fields of the batch overlap one another, so it cannot be projected");
    }
}
