using System;
using System.Collections.Generic;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Verifies what a Schema message says, after <see cref="IpcMessageVerifier"/> has verified its structure: every
    /// value Arrow .NET's schema and batch readers act on is one they accept (<see cref="IpcTypeRules"/>), as Arrow C++'s
    /// schema reader returns Invalid. Arrow .NET acts on them without checking first and throws what its code meets:
    /// <c>Exception</c> for an Int of 48 bits, <c>ArgumentNullException</c> for a field without a name,
    /// <c>ArgumentOutOfRangeException</c> for a Map whose struct has one child. The same walk lays the batches out: the
    /// field nodes and buffers a record batch, and a dictionary batch of each id, has (<see cref="Summary"/>).
    /// </summary>
    /// <remarks>
    /// A value the format does not allow is an <see cref="System.IO.InvalidDataException"/> at its offset; a valid
    /// schema Arrow .NET cannot read (a field or metadata key without a name, an empty struct or union, a union without
    /// type ids, a zero width) is a <see cref="NotSupportedException"/>. Both name the field path. The walk reads what
    /// the structural verifier placed, so it costs what that walk did; it allocates only on failure (the path is
    /// gathered as the fault unwinds) and for the dictionary ids and Null fields it finds.
    /// </remarks>
    internal static class IpcSchemaVerifier
    {
        // Field indexes of Schema.fbs.
        private const int SchemaFields = 1;
        private const int SchemaCustomMetadata = 2;
        private const int FieldName = 0;
        private const int FieldTypeType = 2;
        private const int FieldType = 3;
        private const int FieldDictionary = 4;
        private const int FieldChildren = 5;
        private const int FieldCustomMetadata = 6;
        private const int KeyValueKey = 0;
        private const int DictionaryEncodingId = 0;
        private const int DictionaryEncodingIndexType = 1;

        // A field name longer than this is cut in messages.
        private const int MaxNameInMessage = 64;

        // Past this many fields visited (shared tables can repeat them) the layout is not checked.
        private const int MaxLayoutFields = 1 << 20;

        /// <summary>A dictionary id a schema names: its value type (what tells Arrow .NET's instances apart), the field nodes and buffers a dictionary batch of it has (buffers -1 when not checked).</summary>
        internal struct DictionaryId
        {
            public long Signature;
            public int Nodes;
            public int Buffers;
            public bool Seen;
        }

        /// <summary>The node of a Null field: in the record batch, or in the dictionary batch of <see cref="Id"/>.</summary>
        internal readonly struct NullNode
        {
            public NullNode(bool dictionary, long id, int index)
            {
                Dictionary = dictionary;
                Id = id;
                Index = index;
            }

            public bool Dictionary { get; }

            public long Id { get; }

            public int Index { get; }
        }

        /// <summary>What a verified schema says its batches hold. The collections are kept from schema to schema, made only when a schema has what they hold.</summary>
        internal struct Summary
        {
            /// <summary>The field nodes of a record batch, as Arrow .NET walks them (a dictionary-encoded field is one node).</summary>
            public int Nodes;

            /// <summary>The buffers of a record batch; -1 when a field has a type whose layout is not checked (<see cref="IpcTypeRules.Buffers"/>).</summary>
            public int Buffers;

            /// <summary>Each dictionary id the schema names; null or empty when none.</summary>
            public Dictionary<long, DictionaryId>? Dictionaries;

            /// <summary>The node of each Null field; null or empty when none.</summary>
            public List<NullNode>? NullNodes;
        }

        // The buffers a field's batch has so far, and whether every field of it is of a checked type.
        private struct Layout
        {
            public int Buffers;
            public bool Unchecked;

            public void Add(int buffers)
            {
                if (buffers < 0)
                    Unchecked = true;
                else
                    Buffers = IpcSchemaVerifier.Add(Buffers, buffers);
            }
        }

        // What the walk gathers beside the check.
        private struct Walk
        {
            public Dictionary<long, DictionaryId>? Dictionaries;
            public List<NullNode>? NullNodes;
            public int Fields;
        }

        // The batch of a field outside any dictionary (NullNode.Dictionary false).
        private const long RecordBatch = 0;

        /// <summary>
        /// Verifies the schema of the Schema message <paramref name="root"/> and lays its batches out in
        /// <paramref name="summary"/>: the record batch's nodes and buffers, each dictionary id the schema names with
        /// what a dictionary batch of it holds, and the node of each Null field, in the record batch or a dictionary batch.
        /// </summary>
        public static void Verify(FlatReader reader, FlatTable root, ref Summary summary)
        {
            summary.Dictionaries?.Clear();
            summary.NullNodes?.Clear();
            FlatTable schema = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
            if (!schema.Exists)
                IpcErrors.Throw(reader.InputOffset(root.Position), "message metadata, a Schema message without its Schema table");
            var walk = new Walk { Dictionaries = summary.Dictionaries, NullNodes = summary.NullNodes };
            try
            {
                (int fields, int count) = reader.Vector(schema, SchemaFields, 4, "Schema.fields");
                int nodes = 0;
                var batch = default(Layout);
                for (int i = 0; i < count; i++)
                    nodes = Add(nodes, Field(reader, ref walk, reader.TableAt(fields + (4 * i), "Field"), i, nodes, RecordBatch, ref batch));
                KeyValues(reader, schema, SchemaCustomMetadata, "Schema.custom_metadata");
                summary.Nodes = nodes;
                summary.Buffers = batch.Unchecked ? -1 : batch.Buffers;
            }
            catch (IpcSchemaFault fault)
            {
                throw fault.ToException(reader);
            }
            finally
            {
                summary.Dictionaries = walk.Dictionaries;
                summary.NullNodes = walk.NullNodes;
            }
            if (walk.Fields > MaxLayoutFields)
                Uncheck(ref summary);
        }

        /// <summary>Verifies the schema of the Schema message <paramref name="root"/> and returns the field nodes a record batch of it has.</summary>
        public static int Verify(FlatReader reader, FlatTable root)
        {
            var summary = default(Summary);
            Verify(reader, root, ref summary);
            return summary.Nodes;
        }

        private static void Uncheck(ref Summary summary)
        {
            summary.Buffers = -1;
            if (summary.Dictionaries is not { Count: > 0 } dictionaries)
                return;
            foreach (long id in new List<long>(dictionaries.Keys))
            {
                DictionaryId state = dictionaries[id];
                state.Buffers = -1;
                dictionaries[id] = state;
            }
        }

        // The field's nodes in its batch, the first at nodeIndex; its buffers go to layout, its batch's. A Null field's
        // node goes to the walk's Null nodes with its batch: the record batch, or the dictionary batch of an id (batch null
        // when the field's nodes are not a batch's: the children of a type without child nodes).
        private static int Field(FlatReader reader, ref Walk walk, FlatTable field, int index, int nodeIndex, long? batch, ref Layout layout)
        {
            try
            {
                (int name, _) = reader.Vector(field, FieldName, 1, "Field.name");
                if (name == 0)
                    throw IpcSchemaFault.NotSupported(field.Position, "has no name (Arrow .NET requires one)");
                // As Arrow .NET reads a field: its children first, then its type, which may need them.
                (int children, int childCount) = reader.Vector(field, FieldChildren, 4, "Field.children");
                int type = reader.UInt8(field, FieldTypeType, 0, "Field.type_type");
                bool nested = IpcTypeRules.IsNested(type);
                walk.Fields++;
                // A dictionary-encoded field's values (its type and children) are nodes of its dictionary batch, from 0;
                // in its own batch it is its indices: validity and indices.
                FlatTable encoding = reader.SubTable(field, FieldDictionary, "Field.dictionary");
                long? valuesBatch = encoding.Exists ? reader.Int64(encoding, DictionaryEncodingId, 0, "DictionaryEncoding.id") : batch;
                int valuesIndex = encoding.Exists ? 0 : nodeIndex;
                var values = default(Layout);
                if (encoding.Exists)
                    layout.Add(2);
                ref Layout own = ref encoding.Exists ? ref values : ref layout;
                own.Add(IpcTypeRules.Buffers(type));
                // The children of a type without child nodes are no batch's.
                var none = default(Layout);
                ref Layout inner = ref nested ? ref own : ref none;
                int childNodes = 0;
                for (int i = 0; i < childCount; i++)
                    childNodes = Add(childNodes, Field(reader, ref walk, reader.TableAt(children + (4 * i), "Field"), i, Add(valuesIndex + 1, childNodes), nested ? valuesBatch : null, ref inner));
                if (type == IpcTypeRules.Null && valuesBatch.HasValue)
                    (walk.NullNodes ??= new List<NullNode>()).Add(new NullNode(encoding.Exists, valuesBatch.Value, valuesIndex));
                Type(reader, field, type, children, childCount);
                KeyValues(reader, field, FieldCustomMetadata, "custom_metadata");
                int nodes = nested ? Add(1, childNodes) : 1;
                return Dictionary(reader, ref walk, field, type, nodes, values, encoding) ? 1 : nodes;
            }
            catch (IpcSchemaFault fault)
            {
                fault.Names.Add(NameOf(reader, field, index));
                throw;
            }
        }

        private static void Type(FlatReader reader, FlatTable field, int type, int children, int childCount)
        {
            string name = IpcTypeRules.Name(type);
            if (type == IpcTypeRules.None)
                throw IpcSchemaFault.Invalid(At(reader, field, FieldTypeType, 1), "has no type (type_type NONE)");
            FlatTable table = reader.SubTable(field, FieldType, "Field.type");
            if (!table.Exists)
                throw IpcSchemaFault.Invalid(field.Position, $"type {name}: the type table is missing");
            int required = IpcTypeRules.Children(type);
            if (required >= 0 && childCount != required)
                throw IpcSchemaFault.Invalid(ChildrenAt(reader, field), $"type {name}: {childCount} children, the type has {required}");
            switch (type)
            {
                case IpcTypeRules.Int:
                {
                    int bitWidth = Int32(reader, table, 0, 0, out int at);
                    if (!IpcTypeRules.IsIntBitWidth(bitWidth))
                        throw IpcSchemaFault.Invalid(at, $"type Int: bitWidth {bitWidth} (Arrow reads {IpcTypeRules.IntBitWidths})");
                    break;
                }
                case IpcTypeRules.FloatingPoint:
                {
                    int precision = Int16(reader, table, 0, 0, out int at);
                    if (precision < 0 || precision > IpcTypeRules.LastPrecision)
                        throw IpcSchemaFault.Invalid(at, $"type FloatingPoint: precision {precision} (HALF, SINGLE or DOUBLE: 0 to {IpcTypeRules.LastPrecision})");
                    break;
                }
                case IpcTypeRules.Decimal:
                {
                    int bitWidth = Int32(reader, table, 2, IpcTypeRules.DefaultDecimalBitWidth, out int bitWidthAt);
                    int max = IpcTypeRules.DecimalMaxPrecision(bitWidth);
                    if (max == 0)
                        throw IpcSchemaFault.Invalid(bitWidthAt, $"type Decimal: bitWidth {bitWidth} (32, 64, 128 or 256)");
                    int precision = Int32(reader, table, 0, 0, out int precisionAt);
                    if (precision < 1 || precision > max)
                        throw IpcSchemaFault.Invalid(precisionAt, $"type Decimal: precision {precision} (1 to {max} for {bitWidth} bits)");
                    // Scale: any int32 (negative, or above the precision, is valid Arrow, and Arrow .NET reads it).
                    break;
                }
                case IpcTypeRules.Date:
                    Unit(reader, table, 0, IpcTypeRules.DefaultDateUnit, IpcTypeRules.LastDateUnit, "Date", "DAY or MILLISECOND");
                    break;
                case IpcTypeRules.Time:
                {
                    int unit = Unit(reader, table, 0, IpcTypeRules.DefaultTimeUnit, IpcTypeRules.LastTimeUnit, "Time", "SECOND to NANOSECOND");
                    int bitWidth = Int32(reader, table, 1, IpcTypeRules.DefaultTimeBitWidth, out int at);
                    if (bitWidth != IpcTypeRules.TimeBitWidth(unit))
                        throw IpcSchemaFault.Invalid(at, $"type Time: bitWidth {bitWidth} for unit {unit} (32 for SECOND and MILLISECOND, 64 for MICROSECOND and NANOSECOND)");
                    break;
                }
                case IpcTypeRules.Timestamp:
                    Unit(reader, table, 0, 0, IpcTypeRules.LastTimeUnit, "Timestamp", "SECOND to NANOSECOND");
                    break;
                case IpcTypeRules.Duration:
                    Unit(reader, table, 0, IpcTypeRules.DefaultTimeUnit, IpcTypeRules.LastTimeUnit, "Duration", "SECOND to NANOSECOND");
                    break;
                case IpcTypeRules.Interval:
                    Unit(reader, table, 0, 0, IpcTypeRules.LastIntervalUnit, "Interval", "YEAR_MONTH, DAY_TIME or MONTH_DAY_NANO");
                    break;
                case IpcTypeRules.Union:
                    Union(reader, field, table, childCount);
                    break;
                case IpcTypeRules.FixedSizeBinary:
                    Width(reader, table, "FixedSizeBinary", "byteWidth");
                    break;
                case IpcTypeRules.FixedSizeList:
                    Width(reader, table, "FixedSizeList", "listSize");
                    break;
                case IpcTypeRules.Struct:
                    if (childCount == 0)
                        throw IpcSchemaFault.NotSupported(ChildrenAt(reader, field), "type Struct_: no children (Arrow .NET needs one or more)");
                    break;
                case IpcTypeRules.Map:
                {
                    FlatTable entries = reader.TableAt(children, "Field");
                    (_, int entryChildren) = reader.Vector(entries, FieldChildren, 4, "Field.children");
                    if (reader.UInt8(entries, FieldTypeType, 0, "Field.type_type") != IpcTypeRules.Struct || entryChildren != 2
                        || reader.SubTable(entries, FieldDictionary, "Field.dictionary").Exists)
                        throw IpcSchemaFault.Invalid(entries.Position, $"type Map: its child is not a Struct_ of two fields (key and value)");
                    break;
                }
                case IpcTypeRules.RunEndEncoded:
                {
                    FlatTable runEnds = reader.TableAt(children, "Field");
                    FlatTable runEndsType = reader.SubTable(runEnds, FieldType, "Field.type");
                    bool signed = runEndsType.Exists && reader.UInt8(runEndsType, 1, 0, "Int.is_signed") != 0;
                    if (reader.UInt8(runEnds, FieldTypeType, 0, "Field.type_type") != IpcTypeRules.Int || !signed
                        || !IpcTypeRules.IsRunEndBitWidth(Int32(reader, runEndsType, 0, 0, out _))
                        || reader.SubTable(runEnds, FieldDictionary, "Field.dictionary").Exists)
                        throw IpcSchemaFault.Invalid(runEnds.Position, "type RunEndEncoded: its run ends are not a signed Int of 16, 32 or 64 bits");
                    break;
                }
            }
        }

        private static void Union(FlatReader reader, FlatTable field, FlatTable table, int childCount)
        {
            int mode = Int16(reader, table, 0, 0, out int modeAt);
            if (mode < 0 || mode > IpcTypeRules.LastUnionMode)
                throw IpcSchemaFault.Invalid(modeAt, $"type Union: mode {mode} (Sparse or Dense: 0 or 1)");
            if (childCount == 0)
                throw IpcSchemaFault.NotSupported(ChildrenAt(reader, field), "type Union: no children (Arrow .NET needs one or more)");
            (int ids, int count) = reader.Vector(table, 1, 4, "Union.typeIds");
            if (ids == 0)
                throw IpcSchemaFault.NotSupported(table.Position, "type Union: no typeIds (Arrow .NET needs them)");
            if (count != childCount)
                throw IpcSchemaFault.Invalid(ids - 4, $"type Union: {count} typeIds for {childCount} children");
            ulong low = 0, high = 0;
            for (int i = 0; i < count; i++)
            {
                int id = reader.ReadInt32(ids + (4 * i));
                if (id < 0 || id > IpcTypeRules.MaxUnionTypeId)
                    throw IpcSchemaFault.Invalid(ids + (4 * i), $"type Union: type id {id} (0 to {IpcTypeRules.MaxUnionTypeId})");
                ulong bit = 1UL << (id & 63);
                ref ulong seen = ref id < 64 ? ref low : ref high;
                if ((seen & bit) != 0)
                    throw IpcSchemaFault.Invalid(ids + (4 * i), $"type Union: type id {id} is listed twice");
                seen |= bit;
            }
        }

        // FixedSizeBinary.byteWidth, FixedSizeList.listSize: negative is invalid, zero valid Arrow that Arrow .NET refuses.
        private static void Width(FlatReader reader, FlatTable table, string type, string what)
        {
            int width = Int32(reader, table, 0, 0, out int at);
            if (width < 0)
                throw IpcSchemaFault.Invalid(at, $"type {type}: {what} {width}");
            if (width == 0)
                throw IpcSchemaFault.NotSupported(at, $"type {type}: {what} 0 (Arrow .NET needs 1 or more)");
        }

        private static int Unit(FlatReader reader, FlatTable table, int index, int defaultValue, int last, string type, string allowed)
        {
            int unit = Int16(reader, table, index, defaultValue, out int at);
            if (unit < 0 || unit > last)
                throw IpcSchemaFault.Invalid(at, $"type {type}: unit {unit} ({allowed}: 0 to {last})");
            return unit;
        }

        private static void KeyValues(FlatReader reader, FlatTable table, int index, string what)
        {
            (int position, int count) = reader.Vector(table, index, 4, what);
            for (int i = 0; i < count; i++)
            {
                FlatTable pair = reader.TableAt(position + (4 * i), "KeyValue");
                if (reader.Field(pair, KeyValueKey, 4, "KeyValue.key") < 0)
                    throw IpcSchemaFault.NotSupported(pair.Position, $"{what} entry {i} has no key (Arrow .NET requires one)");
            }
        }

        // The index type, and a dictionary id named by two fields: Arrow .NET takes the second only when its value type is
        // the same shared instance (IpcTypeRules.SharedInstance); different value types are not valid Arrow.
        // True when the field is dictionary-encoded; valueNodes and values are what a dictionary batch of its id holds.
        private static bool Dictionary(FlatReader reader, ref Walk walk, FlatTable field, int type, int valueNodes, in Layout values, FlatTable encoding)
        {
            if (!encoding.Exists)
                return false;
            FlatTable indexType = reader.SubTable(encoding, DictionaryEncodingIndexType, "DictionaryEncoding.indexType");
            if (indexType.Exists)
            {
                int bitWidth = Int32(reader, indexType, 0, 0, out int at);
                if (!IpcTypeRules.IsIntBitWidth(bitWidth))
                    throw IpcSchemaFault.Invalid(at, $"dictionary indexType Int: bitWidth {bitWidth} (Arrow reads {IpcTypeRules.IntBitWidths})");
            }
            int idAt = At(reader, encoding, DictionaryEncodingId, 8);
            long id = reader.Int64(encoding, DictionaryEncodingId, 0, "DictionaryEncoding.id");
            long signature = Signature(reader, field, type);
            Dictionary<long, DictionaryId> dictionaries = walk.Dictionaries ??= new Dictionary<long, DictionaryId>();
            if (!dictionaries.TryGetValue(id, out DictionaryId earlier))
            {
                dictionaries.Add(id, new DictionaryId { Signature = signature, Nodes = valueNodes, Buffers = values.Unchecked ? -1 : values.Buffers });
                return true;
            }
            // The same shared value type again: the same layout.
            int earlierType = (int)(earlier.Signature >> 32);
            if (earlierType != type || (IpcTypeRules.SharedInstance(type) && earlier.Signature != signature))
                throw IpcSchemaFault.Invalid(idAt, $"dictionary id {id} is named again with another value type ({IpcTypeRules.Name(earlierType)}, then {IpcTypeRules.Name(type)})");
            if (!IpcTypeRules.SharedInstance(type))
                throw IpcSchemaFault.NotSupported(idAt, $"dictionary id {id} is named again, for a value type {IpcTypeRules.Name(type)} (Arrow .NET shares a dictionary only between parameterless types)");
            return true;
        }

        private static int Add(int a, int b) => (int)Math.Min(int.MaxValue, (long)a + b);

        // The value type and what tells its shared instances apart: non-negative.
        private static long Signature(FlatReader reader, FlatTable field, int type)
        {
            FlatTable table = reader.SubTable(field, FieldType, "Field.type");
            int parameters = type switch
            {
                IpcTypeRules.Int => (Int32(reader, table, 0, 0, out _) * 2) + (reader.UInt8(table, 1, 0, "Int.is_signed") != 0 ? 1 : 0),
                IpcTypeRules.FloatingPoint or IpcTypeRules.Interval => Int16(reader, table, 0, 0, out _),
                IpcTypeRules.Date or IpcTypeRules.Time or IpcTypeRules.Duration => Int16(reader, table, 0, 1, out _),
                _ => 0,
            };
            return ((long)type << 32) | (uint)parameters;
        }

        private static int Int32(FlatReader reader, FlatTable table, int index, int defaultValue, out int at)
        {
            int position = reader.Field(table, index, 4, "type field");
            at = position < 0 ? table.Position : position;
            return position < 0 ? defaultValue : reader.ReadInt32(position);
        }

        private static int Int16(FlatReader reader, FlatTable table, int index, int defaultValue, out int at)
        {
            int position = reader.Field(table, index, 2, "type field");
            at = position < 0 ? table.Position : position;
            return position < 0 ? defaultValue : reader.Int16(table, index, 0, "type field");
        }

        private static int At(FlatReader reader, FlatTable table, int index, int size)
        {
            int position = reader.Field(table, index, size, "field");
            return position < 0 ? table.Position : position;
        }

        private static int ChildrenAt(FlatReader reader, FlatTable field)
        {
            (int children, _) = reader.Vector(field, FieldChildren, 4, "Field.children");
            return children == 0 ? field.Position : children - 4;
        }

        private static string NameOf(FlatReader reader, FlatTable field, int index)
        {
            (int position, int length) = reader.Vector(field, FieldName, 1, "Field.name");
            if (position == 0)
                return $"#{index}";
            string name = reader.Utf8(position, Math.Min(length, MaxNameInMessage));
            return length > MaxNameInMessage ? name + "..." : name;
        }
    }
}
