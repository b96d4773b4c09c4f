using System.Collections.Generic;
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
        private const int DictionaryEncodingId = 0;
        private const int MaxDepth = 64;
        private const int MaxNodes = 1 << 20;

        /// <summary>
        /// The nodes and buffers a record batch of the Schema message <paramref name="root"/> needs; (-1, -1) when a field
        /// has a type whose layout is not checked here (null, unions, run-end encoded, views) or the schema is not one the
        /// walk can read: Arrow's reader then judges it, as without the wrapper. <paramref name="dictionaries"/> is cleared
        /// and given what a dictionary batch of each dictionary id the schema names needs, (-1, -1) when not checked.
        /// </summary>
        public static (int Nodes, int Buffers) Read(FlatReader reader, FlatTable root, Dictionary<long, (int Nodes, int Buffers)> dictionaries)
        {
            dictionaries.Clear();
            try
            {
                FlatTable schema = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
                if (!schema.Exists)
                    return (-1, -1);
                int nodes = 0, buffers = 0, budget = MaxNodes;
                bool known = Fields(reader, schema, SchemaFields, 0, ref nodes, ref buffers, ref budget, dictionaries);
                if (budget < 0)
                {
                    dictionaries.Clear();
                    return (-1, -1);
                }
                return known ? (nodes, buffers) : (-1, -1);
            }
            catch (InvalidDataException)
            {
                dictionaries.Clear();
                return (-1, -1);
            }
        }

        /// <summary>What a dictionary batch of <paramref name="id"/> needs; (-1, -1) when the schema does not say or it is not checked.</summary>
        public static (int Nodes, int Buffers) Dictionary(Dictionary<long, (int Nodes, int Buffers)>? dictionaries, long id) =>
            dictionaries != null && dictionaries.TryGetValue(id, out (int Nodes, int Buffers) layout) ? layout : (-1, -1);

        // Adds the children of table's vector index to the counts; false when one has a layout not checked here. Every
        // field visited, in the batch or in a dictionary's values, costs one of budget, so shared tables cannot make the walk long.
        private static bool Fields(FlatReader reader, FlatTable table, int index, int depth, ref int nodes, ref int buffers, ref int budget, Dictionary<long, (int Nodes, int Buffers)> dictionaries)
        {
            if (depth > MaxDepth)
                return false;
            (int position, int count) = reader.Vector(table, index, 4, "Field.children");
            bool known = true;
            for (int i = 0; i < count; i++)
            {
                FlatTable field = reader.TableAt(position + (4 * i), "Field");
                if (--budget < 0)
                    return false;
                nodes++;
                // A dictionary-encoded field is its indices in the batch: validity and indices, no children. Its values
                // (the field's type and children) are what a dictionary batch of its id holds.
                FlatTable encoding = reader.SubTable(field, FieldDictionary, "Field.dictionary");
                if (encoding.Exists)
                {
                    buffers += 2;
                    long id = reader.Int64(encoding, DictionaryEncodingId, 0, "DictionaryEncoding.id");
                    int valueNodes = 1, valueBuffers = 0;
                    bool valuesKnown = Type(reader, field, depth, ref valueNodes, ref valueBuffers, ref budget, dictionaries);
                    if (budget < 0)
                        return false;
                    Add(dictionaries, id, valuesKnown ? (valueNodes, valueBuffers) : (-1, -1));
                    continue;
                }
                known &= Type(reader, field, depth, ref nodes, ref buffers, ref budget, dictionaries);
                if (budget < 0)
                    return false;
            }
            return known;
        }

        // Adds the buffers of field's type and the nodes and buffers of its children.
        private static bool Type(FlatReader reader, FlatTable field, int depth, ref int nodes, ref int buffers, ref int budget, Dictionary<long, (int Nodes, int Buffers)> dictionaries)
        {
            int own;
            bool children = false;
            switch (reader.UInt8(field, FieldTypeType, 0, "Field.type_type"))
            {
                case IpcTypeRules.Int:
                case IpcTypeRules.FloatingPoint:
                case IpcTypeRules.Bool:
                case IpcTypeRules.Decimal:
                case IpcTypeRules.Date:
                case IpcTypeRules.Time:
                case IpcTypeRules.Timestamp:
                case IpcTypeRules.Interval:
                case IpcTypeRules.FixedSizeBinary:
                case IpcTypeRules.Duration:
                    own = 2;
                    break;
                case IpcTypeRules.Binary:
                case IpcTypeRules.Utf8:
                case IpcTypeRules.LargeBinary:
                case IpcTypeRules.LargeUtf8:
                    own = 3;
                    break;
                case IpcTypeRules.List:
                case IpcTypeRules.Map:
                case IpcTypeRules.LargeList:
                    own = 2;
                    children = true;
                    break;
                case IpcTypeRules.Struct:
                case IpcTypeRules.FixedSizeList:
                    own = 1;
                    children = true;
                    break;
                default:
                    return false;
            }
            buffers += own;
            return !children || Fields(reader, field, FieldChildren, depth + 1, ref nodes, ref buffers, ref budget, dictionaries);
        }

        // A dictionary id named twice with different layouts (not a valid schema) is not checked.
        private static void Add(Dictionary<long, (int Nodes, int Buffers)> dictionaries, long id, (int Nodes, int Buffers) layout)
        {
            if (!dictionaries.TryGetValue(id, out (int Nodes, int Buffers) earlier))
                dictionaries.Add(id, layout);
            else if (earlier != layout)
                dictionaries[id] = (-1, -1);
        }
    }
}
