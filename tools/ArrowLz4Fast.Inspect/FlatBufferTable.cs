using System;
using System.Buffers.Binary;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>
    /// Just enough of FlatBuffers to read Arrow's Message tables: field lookup through the vtable, scalars, nested
    /// tables and vectors of structs. Every offset is bounds-checked against the metadata it came from, and errors
    /// name the absolute file offset.
    /// </summary>
    internal readonly struct FlatBufferTable
    {
        private readonly ReadOnlyMemory<byte> _buffer;
        private readonly int _table;
        private readonly long _fileOffset;

        private FlatBufferTable(ReadOnlyMemory<byte> buffer, int table, long fileOffset)
        {
            _buffer = buffer;
            _table = table;
            _fileOffset = fileOffset;
        }

        /// <summary>The root table of a FlatBuffer (a uoffset at its start).</summary>
        public static FlatBufferTable Root(ReadOnlyMemory<byte> buffer, long fileOffset)
        {
            var probe = new FlatBufferTable(buffer, 0, fileOffset);
            return probe.TableAt(0, "root table");
        }

        public long GetInt64(int field, long defaultValue = 0)
        {
            int at = FieldPosition(field);
            return at == 0 ? defaultValue : BinaryPrimitives.ReadInt64LittleEndian(Slice(at, 8, "int64 field"));
        }

        public short GetInt16(int field, short defaultValue = 0)
        {
            int at = FieldPosition(field);
            return at == 0 ? defaultValue : BinaryPrimitives.ReadInt16LittleEndian(Slice(at, 2, "int16 field"));
        }

        public byte GetByte(int field, byte defaultValue = 0)
        {
            int at = FieldPosition(field);
            return at == 0 ? defaultValue : Slice(at, 1, "byte field")[0];
        }

        /// <summary>A nested table, or null when the field is absent.</summary>
        public FlatBufferTable? GetTable(int field)
        {
            int at = FieldPosition(field);
            return at == 0 ? null : TableAt(at, $"table field {field}");
        }

        /// <summary>A vector of fixed-size structs: where its elements start and how many there are (0 when absent).</summary>
        public (int Start, int Count) GetStructVector(int field, int elementSize)
        {
            int at = FieldPosition(field);
            if (at == 0)
                return (0, 0);
            int vector = checked(at + (int)ReadUOffset(at));
            uint count = BinaryPrimitives.ReadUInt32LittleEndian(Slice(vector, 4, "vector length"));
            if (count > int.MaxValue / elementSize)
                throw Error($"vector of {count} elements does not fit in the metadata", vector);
            Slice(vector + 4, (int)count * elementSize, "vector elements");
            return (vector + 4, (int)count);
        }

        public long ReadInt64At(int position) => BinaryPrimitives.ReadInt64LittleEndian(Slice(position, 8, "struct field"));

        private FlatBufferTable TableAt(int position, string what)
        {
            long table = position + (long)ReadUOffset(position);
            if (table > _buffer.Length - 4)
                throw Error($"{what} points outside the metadata", position);
            return new FlatBufferTable(_buffer, (int)table, _fileOffset);
        }

        private uint ReadUOffset(int position) => BinaryPrimitives.ReadUInt32LittleEndian(Slice(position, 4, "offset"));

        /// <summary>Absolute position of a field's value within the buffer, 0 when the field is absent.</summary>
        private int FieldPosition(int field)
        {
            int soffset = BinaryPrimitives.ReadInt32LittleEndian(Slice(_table, 4, "table"));
            long vtable = _table - (long)soffset;
            if (vtable < 0 || vtable > _buffer.Length - 4)
                throw Error("table's vtable lies outside the metadata", _table);
            ReadOnlySpan<byte> header = Slice((int)vtable, 4, "vtable");
            ushort vtableSize = BinaryPrimitives.ReadUInt16LittleEndian(header);
            ushort tableSize = BinaryPrimitives.ReadUInt16LittleEndian(header.Slice(2));
            Slice((int)vtable, vtableSize, "vtable");
            Slice(_table, tableSize, "table");
            int slot = 4 + (2 * field);
            if (slot + 2 > vtableSize)
                return 0;
            ushort offset = BinaryPrimitives.ReadUInt16LittleEndian(_buffer.Span.Slice((int)vtable + slot));
            if (offset != 0 && offset >= tableSize)
                throw Error($"field {field} lies outside its {tableSize}-byte table", (int)vtable + slot);
            return offset == 0 ? 0 : _table + offset;
        }

        private ReadOnlySpan<byte> Slice(int position, int length, string what)
        {
            if (position < 0 || length < 0 || position > _buffer.Length - length)
                throw Error($"{what} ({length} bytes) runs past the end of the {_buffer.Length}-byte metadata", position);
            return _buffer.Span.Slice(position, length);
        }

        private InspectException Error(string message, long position) =>
            new($"malformed message metadata: {message}", _fileOffset + position);
    }
}
