using System.IO;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// How many field nodes and buffers a record batch of a schema has (format/Schema.fbs, the columnar format's buffer
    /// layouts). Arrow .NET reads a batch's nodes and buffers by index without checking the vectors' lengths, so a batch
    /// that lists fewer than its schema needs makes it read past them: on the original metadata it finds the bytes that
    /// follow, on the rewritten metadata other bytes. The wrapper refuses such a batch instead (found by fuzz --ipc).
    /// </summary>
    internal static class IpcSchemaLayout
    {
        private const int SchemaFields = 1;
        private const int FieldTypeType = 2;
        private const int FieldDictionary = 4;
        private const int FieldChildren = 5;
        private const int MaxDepth = 64;
        private const int MaxNodes = 1 << 20;

        /// <summary>
        /// The nodes and buffers a record batch of the Schema message <paramref name="root"/> needs; (-1, -1) when a field
        /// has a type whose layout is not checked here (null, unions, run-end encoded, views) or the schema is not one the
        /// walk can read: Arrow's reader then judges it, as without the wrapper.
        /// </summary>
        public static (int Nodes, int Buffers) Read(FlatReader reader, FlatTable root)
        {
            try
            {
                FlatTable schema = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
                if (!schema.Exists)
                    return (-1, -1);
                int nodes = 0, buffers = 0;
                return Fields(reader, schema, SchemaFields, 0, ref nodes, ref buffers) ? (nodes, buffers) : (-1, -1);
            }
            catch (InvalidDataException)
            {
                return (-1, -1);
            }
        }

        private static bool Fields(FlatReader reader, FlatTable table, int index, int depth, ref int nodes, ref int buffers)
        {
            if (depth > MaxDepth)
                return false;
            (int position, int count) = reader.Vector(table, index, 4, "Field.children");
            for (int i = 0; i < count; i++)
            {
                FlatTable field = reader.TableAt(position + (4 * i), "Field");
                if (++nodes > MaxNodes)
                    return false;
                // A dictionary-encoded field is its indices in the batch: validity and indices, no children.
                if (reader.SubTable(field, FieldDictionary, "Field.dictionary").Exists)
                {
                    buffers += 2;
                    continue;
                }
                int own;
                bool children = false;
                switch (reader.UInt8(field, FieldTypeType, 0, "Field.type_type"))
                {
                    case 2: // Int
                    case 3: // FloatingPoint
                    case 6: // Bool
                    case 7: // Decimal
                    case 8: // Date
                    case 9: // Time
                    case 10: // Timestamp
                    case 11: // Interval
                    case 15: // FixedSizeBinary
                    case 18: // Duration
                        own = 2;
                        break;
                    case 4: // Binary
                    case 5: // Utf8
                    case 19: // LargeBinary
                    case 20: // LargeUtf8
                        own = 3;
                        break;
                    case 12: // List
                    case 17: // Map
                    case 21: // LargeList
                        own = 2;
                        children = true;
                        break;
                    case 13: // Struct_
                    case 16: // FixedSizeList
                        own = 1;
                        children = true;
                        break;
                    default:
                        return false;
                }
                buffers += own;
                if (children && !Fields(reader, field, FieldChildren, depth + 1, ref nodes, ref buffers))
                    return false;
            }
            return true;
        }
    }
}
