using System.Collections.Generic;
using System.IO;
using System.Text;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The columns of a Schema message as its batches lay them out: every field depth first, one field node each, with
    /// the buffers it owns and its type. <see cref="IpcDecompressingStream"/> names the field and buffer of a defect
    /// with it, and its verifying read finds the offsets buffers to check. Read only when needed, apart from the
    /// verifying walk that counts (<see cref="IpcSchemaVerifier"/>), by the same buffer rules (<see cref="IpcTypeRules.Buffers"/>);
    /// a schema with a type whose layout is not checked (null, unions, run-end encoded, views) has no columns, and
    /// errors then name the buffer by its index alone.
    /// </summary>
    internal sealed class IpcSchemaColumns
    {
        private const int SchemaFields = 1;
        private const int FieldName = 0;
        private const int FieldTypeType = 2;
        private const int FieldDictionary = 4;
        private const int FieldChildren = 5;
        private const int MaxDepth = 64;
        private const int MaxColumns = 1 << 20;

        /// <summary>Type codes of Schema.fbs that have offsets; <see cref="DictionaryIndices"/> marks a dictionary-encoded field's indices.</summary>
        internal const byte Binary = IpcTypeRules.Binary;
        internal const byte Utf8 = IpcTypeRules.Utf8;
        internal const byte List = IpcTypeRules.List;
        internal const byte Map = IpcTypeRules.Map;
        internal const byte LargeBinary = IpcTypeRules.LargeBinary;
        internal const byte LargeUtf8 = IpcTypeRules.LargeUtf8;
        internal const byte LargeList = IpcTypeRules.LargeList;
        internal const byte DictionaryIndices = 255;

        /// <summary>One field of a batch: its table in the schema, its parent column (-1 at the top), its field node and buffers.</summary>
        internal struct Column
        {
            public FlatTable Field;
            public int Parent;
            public int Node;
            public int FirstBuffer;
            public int BufferCount;
            public byte Type;
        }

        /// <summary>The columns of a record batch, or of the dictionary batches of one id (its values, under the encoded field).</summary>
        internal sealed class Layout
        {
            public readonly List<Column> Columns = new List<Column>();

            /// <summary>For a dictionary's values: the encoded field, named before the values' path.</summary>
            public FlatTable Owner;
        }

        // A copy of the schema's flatbuffer: field names are read from it only when an error names a field.
        private readonly byte[] _schema;
        private readonly FlatReader _reader;
        private readonly Layout? _batch;
        private readonly Dictionary<long, Layout?> _dictionaries = new Dictionary<long, Layout?>();

        private IpcSchemaColumns(byte[] schema, FlatTable root)
        {
            _schema = schema;
            _reader = new FlatReader(schema, 0, schema.Length, 0);
            try
            {
                FlatTable header = _reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
                var batch = new Layout();
                int budget = MaxColumns, buffers = 0;
                if (header.Exists && Fields(header, SchemaFields, -1, 0, batch, ref buffers, ref budget))
                    _batch = batch;
            }
            catch (InvalidDataException)
            {
                // Arrow's reader judges a schema the walk cannot read; errors then name buffers by index.
                _batch = null;
                _dictionaries.Clear();
            }
        }

        /// <summary>Reads the columns of the Schema message in <paramref name="buffer"/> (its flatbuffer at <paramref name="start"/>), keeping a copy of it.</summary>
        public static IpcSchemaColumns Read(byte[] buffer, int start, int length, FlatTable root)
        {
            byte[] copy = new byte[length];
            System.Array.Copy(buffer, start, copy, 0, length);
            return new IpcSchemaColumns(copy, root);
        }

        /// <summary>The columns of a record batch; null when not known.</summary>
        public Layout? Batch => _batch;

        /// <summary>The columns of a batch: the record batch's, or those of the dictionary id; null when not known.</summary>
        public Layout? For(in IpcMessage message) =>
            !message.Dictionary.Exists ? _batch : _dictionaries.TryGetValue(message.DictionaryId, out Layout? layout) ? layout : null;

        /// <summary>The column owning buffer <paramref name="buffer"/> of a batch, or -1.</summary>
        public static int ColumnOf(Layout layout, int buffer)
        {
            for (int i = 0; i < layout.Columns.Count; i++)
            {
                Column column = layout.Columns[i];
                if (buffer >= column.FirstBuffer && buffer < column.FirstBuffer + column.BufferCount)
                    return i;
            }
            return -1;
        }

        /// <summary>The field's name.</summary>
        public string Name(FlatTable field)
        {
            try
            {
                (int position, int length) = _reader.Vector(field, FieldName, 1, "Field.name");
                return position == 0 ? "" : Encoding.UTF8.GetString(_schema, position, length);
            }
            catch (InvalidDataException)
            {
                return "?";
            }
        }

        /// <summary>The column's path: the names from the top field down, joined by dots (a dictionary's values under their encoded field).</summary>
        public string Path(Layout layout, int column)
        {
            var names = new List<string>();
            for (int i = column; i >= 0; i = layout.Columns[i].Parent)
                names.Add(Name(layout.Columns[i].Field));
            if (layout.Owner.Exists)
                names[names.Count - 1] = Name(layout.Owner) + " (dictionary values)";
            names.Reverse();
            return string.Join(".", names);
        }

        /// <summary>What buffer <paramref name="index"/> of a column of <paramref name="type"/> holds, as the columnar format names it.</summary>
        public static string Role(byte type, int index)
        {
            if (index == 0)
                return "validity bitmap";
            switch (type)
            {
                case Binary:
                case Utf8:
                case LargeBinary:
                case LargeUtf8:
                    return index == 1 ? "offsets" : "data";
                case List:
                case Map:
                case LargeList:
                    return "offsets";
                case DictionaryIndices:
                    return "dictionary indices";
                default:
                    return "values";
            }
        }

        // Adds the fields of table's vector index to layout; false when one has a type whose layout is not known here.
        // Every field visited costs one of budget, so shared tables cannot make the walk long.
        private bool Fields(FlatTable table, int index, int parent, int depth, Layout layout, ref int buffers, ref int budget)
        {
            if (depth > MaxDepth)
                return false;
            (int position, int count) = _reader.Vector(table, index, 4, "Field.children");
            for (int i = 0; i < count; i++)
            {
                FlatTable field = _reader.TableAt(position + (4 * i), "Field");
                if (--budget < 0)
                    return false;
                FlatTable encoding = _reader.SubTable(field, FieldDictionary, "Field.dictionary");
                if (encoding.Exists)
                {
                    // In the batch a dictionary-encoded field is its indices; its values are a dictionary batch's.
                    Add(layout, field, parent, DictionaryIndices, 2, ref buffers);
                    long id = _reader.Int64(encoding, IpcMessageParser.DictionaryBatchId, 0, "DictionaryEncoding.id");
                    var values = new Layout { Owner = field };
                    int valueBuffers = 0;
                    bool known = Type(field, -1, depth, values, ref valueBuffers, ref budget);
                    // An id named twice (not a valid schema) is not named.
                    _dictionaries[id] = known && !_dictionaries.ContainsKey(id) ? values : null;
                    continue;
                }
                if (!Type(field, parent, depth, layout, ref buffers, ref budget))
                    return false;
            }
            return true;
        }

        // Adds field as a column of its type, then its children.
        private bool Type(FlatTable field, int parent, int depth, Layout layout, ref int buffers, ref int budget)
        {
            byte type = (byte)_reader.UInt8(field, FieldTypeType, 0, "Field.type_type");
            int own = IpcTypeRules.Buffers(type);
            if (own < 0)
                return false;
            int self = Add(layout, field, parent, type, own, ref buffers);
            return !IpcTypeRules.IsNested(type) || Fields(field, FieldChildren, self, depth + 1, layout, ref buffers, ref budget);
        }

        private static int Add(Layout layout, FlatTable field, int parent, byte type, int own, ref int buffers)
        {
            layout.Columns.Add(new Column { Field = field, Parent = parent, Node = layout.Columns.Count, FirstBuffer = buffers, BufferCount = own, Type = type });
            buffers += own;
            return layout.Columns.Count - 1;
        }
    }
}
