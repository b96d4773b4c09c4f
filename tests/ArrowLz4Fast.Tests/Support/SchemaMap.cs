using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Where the values of a real stream's Schema message lie, by field path ("st.x"): its type union byte, its type
    /// table's fields, its children vector, its dictionary encoding, in absolute offsets of the stream, to plant a bad
    /// value at one of them.
    /// </summary>
    internal sealed class SchemaMap
    {
        private readonly byte[] _bytes;
        private readonly int _base;
        private readonly FlatReader _reader;
        private readonly Dictionary<string, FlatTable> _fields = new(StringComparer.Ordinal);

        public SchemaMap(byte[] bytes)
        {
            _bytes = bytes;
            IpcMutator.Message schema = IpcMutator.Messages(bytes)[0];
            _base = schema.Metadata;
            _reader = new FlatReader(bytes, schema.Metadata, schema.MetadataLength, schema.Metadata);
            Root = _reader.Root("Message");
            Schema = _reader.SubTable(Root, IpcMessageParser.MessageHeader, "Schema");
            Walk(Schema, 1, "");
        }

        public FlatTable Root { get; }

        public FlatTable Schema { get; }

        /// <summary>The field paths in pre-order, as the schema lists them.</summary>
        public List<string> Paths { get; } = new();

        /// <summary>The absolute offset of the message's header_type byte.</summary>
        public int HeaderType => Absolute(_reader.Field(Root, IpcMessageParser.MessageHeaderType, 1, "header_type"));

        public FlatTable Field(string path) => _fields[path];

        /// <summary>The absolute offset of field <paramref name="index"/> of <paramref name="table"/> (present).</summary>
        public int At(FlatTable table, int index) => Absolute(Require(_reader.Field(table, index, 1, "field"), index));

        /// <summary>The absolute offset of <paramref name="table"/>'s vtable entry for field <paramref name="index"/>.</summary>
        public int VTableEntry(FlatTable table, int index) => _base + table.VTable + 4 + (2 * index);

        public int TableOffset(FlatTable table) => Absolute(table.Position);

        public FlatTable TypeTable(string path) => _reader.SubTable(Field(path), 3, "type");

        public FlatTable Encoding(string path) => _reader.SubTable(Field(path), 4, "dictionary");

        public FlatTable Sub(FlatTable table, int index) => _reader.SubTable(table, index, "table");

        /// <summary>Table <paramref name="i"/> of a vector of tables.</summary>
        public FlatTable VectorTable(FlatTable table, int index, int i) => _reader.TableAt(_reader.Vector(table, index, 4, "vector").Position + (4 * i), "table");

        /// <summary>The absolute offset of a vector's length (the vector field present).</summary>
        public int VectorLength(FlatTable table, int index) => Absolute(_reader.Vector(table, index, 1, "vector").Position - 4);

        /// <summary>The absolute offset of element <paramref name="i"/> of a vector of 4-byte elements.</summary>
        public int VectorElement(FlatTable table, int index, int i) => Absolute(_reader.Vector(table, index, 4, "vector").Position + (4 * i));

        public void Int32(int offset, int value) => BinaryPrimitives.WriteInt32LittleEndian(_bytes.AsSpan(offset), value);

        public void Int16(int offset, short value) => BinaryPrimitives.WriteInt16LittleEndian(_bytes.AsSpan(offset), value);

        public int ReadInt32(int offset) => BinaryPrimitives.ReadInt32LittleEndian(_bytes.AsSpan(offset));

        public void Byte(int offset, byte value) => _bytes[offset] = value;

        private int Absolute(int position) => _base + position;

        private static int Require(int position, int index) =>
            position >= 0 ? position : throw new InvalidOperationException($"field {index} is absent from the table");

        private void Walk(FlatTable table, int index, string parent)
        {
            (int position, int count) = _reader.Vector(table, index, 4, "fields");
            for (int i = 0; i < count; i++)
            {
                FlatTable field = _reader.TableAt(position + (4 * i), "Field");
                (int name, int length) = _reader.Vector(field, 0, 1, "name");
                string path = parent + System.Text.Encoding.UTF8.GetString(_bytes, _base + name, length);
                _fields[path] = field;
                Paths.Add(path);
                Walk(field, 5, path + ".");
            }
        }
    }
}
