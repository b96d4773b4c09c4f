using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A bounds-checked reader of the few flatbuffer tables an IPC message needs: every offset, vtable and vector is
    /// checked against the buffer before it is followed, and a defect is an <see cref="System.IO.InvalidDataException"/>
    /// at its offset in the input stream.
    /// </summary>
    internal readonly struct FlatReader
    {
        private readonly byte[] _buffer;
        private readonly int _start;
        private readonly int _length;
        private readonly long _inputOffset;

        /// <param name="buffer">Holds the flatbuffer at <paramref name="start"/>.</param>
        /// <param name="start">Where the flatbuffer starts in <paramref name="buffer"/>.</param>
        /// <param name="length">The flatbuffer's length.</param>
        /// <param name="inputOffset">The input stream's offset of the flatbuffer's first byte, for errors.</param>
        public FlatReader(byte[] buffer, int start, int length, long inputOffset)
        {
            _buffer = buffer;
            _start = start;
            _length = length;
            _inputOffset = inputOffset;
        }

        public ReadOnlySpan<byte> Data => new(_buffer, _start, _length);

        // Reads at positions this reader has checked against the metadata: one bounds check, the array's, instead of
        // the metadata span's, its slice's and the read's (the walks make dozens of these per message).
        private int UInt16At(int position) => BinaryPrimitives.ReadUInt16LittleEndian(new ReadOnlySpan<byte>(_buffer, _start + position, 2));

        private uint UInt32At(int position) => BinaryPrimitives.ReadUInt32LittleEndian(new ReadOnlySpan<byte>(_buffer, _start + position, 4));

        /// <summary>The flatbuffer's length.</summary>
        public int Length => _length;

        public FlatTable Root(string what) => Table(Follow(0, what), what);

        /// <summary>Follows the uoffset at <paramref name="position"/> to a table.</summary>
        public FlatTable Table(int position, string what)
        {
            if (position < 0 || position > _length - 4)
                FailTableOutside(position, what);
            long vtable = position - (long)(int)UInt32At(position);
            if (vtable < 0 || vtable > _length - 4 || (vtable & 1) != 0)
                FailVTableOffset(position, what, vtable);
            int vt = (int)vtable;
            int vtableSize = UInt16At(vt);
            int tableSize = UInt16At(vt + 2);
            if (vtableSize < 4 || (vtableSize & 1) != 0 || vt + vtableSize > _length || tableSize < 4 || position + tableSize > _length)
                FailTableSizes(vt, what, vtableSize, tableSize);
            return new FlatTable(position, vt, vtableSize, tableSize);
        }

        /// <summary>The position of field <paramref name="index"/> of <paramref name="size"/> bytes, or -1 when absent.</summary>
        public int Field(FlatTable table, int index, int size, string what)
        {
            int slot = 4 + (2 * index);
            if (slot + 2 > table.VTableSize)
                return -1;
            int offset = UInt16At(table.VTable + slot);
            if (offset == 0)
                return -1;
            if (offset < 4 || offset + size > table.TableSize)
                FailField(table.VTable + slot, what, offset, table.TableSize);
            return table.Position + offset;
        }

        public long Int64(FlatTable table, int index, long defaultValue, string what)
        {
            int at = Field(table, index, 8, what);
            return at < 0 ? defaultValue : BinaryPrimitives.ReadInt64LittleEndian(Data.Slice(at));
        }

        public int UInt8(FlatTable table, int index, int defaultValue, string what)
        {
            int at = Field(table, index, 1, what);
            return at < 0 ? defaultValue : Data[at];
        }

        public short Int16(FlatTable table, int index, short defaultValue, string what)
        {
            int at = Field(table, index, 2, what);
            return at < 0 ? defaultValue : BinaryPrimitives.ReadInt16LittleEndian(Data.Slice(at));
        }

        /// <summary>The table a field refers to; <see cref="FlatTable.Exists"/> is false when the field is absent.</summary>
        public FlatTable SubTable(FlatTable table, int index, string what)
        {
            int at = Field(table, index, 4, what);
            return at < 0 ? default : Table(Follow(at, what), what);
        }

        /// <summary>A vector of <paramref name="elementSize"/>-byte elements: the position of its first element and its count (0, 0 when absent).</summary>
        public (int Position, int Count) Vector(FlatTable table, int index, int elementSize, string what)
        {
            int at = Field(table, index, 4, what);
            return at < 0 ? (0, 0) : VectorAt(at, elementSize, what);
        }

        /// <summary>The vector the uoffset field at <paramref name="at"/> (placed by <see cref="Field"/>) refers to, as <see cref="Vector"/> gives it.</summary>
        private (int Position, int Count) VectorAt(int at, int elementSize, string what)
        {
            int vector = Follow(at, what);
            if (vector > _length - 4)
                FailVector(vector, what, -1, elementSize);
            uint count = UInt32At(vector);
            if (count * (long)elementSize > _length - vector - 4)
                FailVector(vector, what, count, elementSize);
            return (vector + 4, (int)count);
        }

        /// <summary>
        /// A string field's byte length (0 when absent): its bytes and the terminating zero lie inside the metadata, as
        /// the flatbuffers verifier requires.
        /// </summary>
        public int String(FlatTable table, int index, string what)
        {
            int at = Field(table, index, 4, what);
            return at < 0 ? 0 : StringAt(at, what);
        }

        /// <summary>The string the uoffset field at <paramref name="at"/> (placed by <see cref="Field"/>) refers to, checked as <see cref="String"/> checks it.</summary>
        public int StringAt(int at, string what)
        {
            (int position, int length) = VectorAt(at, 1, what);
            if (length >= _length - position || Data[position + length] != 0)
                Fail(position - 4, $"{what}: the string of {length} byte(s) has no terminating zero inside the metadata");
            return length;
        }

        /// <summary>The table an element of a vector of tables (a uoffset at <paramref name="position"/>) refers to.</summary>
        public FlatTable TableAt(int position, string what) => Table(Follow(position, what), what);

        public int ReadUInt8(int position) => Data[position];

        public long ReadInt64(int position) => BinaryPrimitives.ReadInt64LittleEndian(Data.Slice(position));

        public int ReadInt32(int position) => BinaryPrimitives.ReadInt32LittleEndian(Data.Slice(position));

        public long InputOffset(int position) => _inputOffset + position;

        /// <summary>The UTF-8 text of <paramref name="length"/> bytes at <paramref name="position"/>, for messages (invalid bytes become U+FFFD).</summary>
        public string Utf8(int position, int length) => System.Text.Encoding.UTF8.GetString(_buffer, _start + position, length);

        private int Follow(int position, string what)
        {
            if (position < 0 || position > _length - 4)
                FailFollow(position, what, -1);
            uint offset = UInt32At(position);
            long target = position + (long)offset;
            // An offset of 0 points at itself: no flatbuffer writes one, and FlatBuffers .NET reads such a string as null.
            if (offset == 0 || target > _length - 4)
                FailFollow(position, what, offset == 0 ? 0 : target);
            return (int)target;
        }

        // The failures, out of line: the checks above run for every table and field of every message, and stay small.

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailTableOutside(int position, string what) =>
            Fail(position, $"{what}: the table lies outside the {_length}-byte metadata");

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailVTableOffset(int position, string what, long vtable) =>
            Fail(position, $"{what}: its vtable offset points to {vtable}, outside the metadata or misaligned");

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailTableSizes(int vt, string what, int vtableSize, int tableSize)
        {
            if (vtableSize < 4 || (vtableSize & 1) != 0 || vt + vtableSize > _length)
                Fail(vt, $"{what}: vtable size {vtableSize} is invalid or runs past the metadata");
            Fail(vt, $"{what}: table size {tableSize} runs past the metadata");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailField(int slot, string what, int offset, int tableSize) =>
            Fail(slot, $"{what}: field offset {offset} lies outside its {tableSize}-byte table");

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailVector(int vector, string what, long count, int elementSize)
        {
            if (count < 0)
                Fail(vector, $"{what}: the vector lies outside the {_length}-byte metadata");
            Fail(vector, $"{what}: {count} element(s) of {elementSize} bytes run past the metadata");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private void FailFollow(int position, string what, long target)
        {
            if (target < 0)
                Fail(position, $"{what}: the offset field lies outside the {_length}-byte metadata");
            if (target == 0)
                Fail(position, $"{what}: offset 0 points at itself");
            Fail(position, $"{what}: offset points to {target}, past the {_length}-byte metadata");
        }

        private void Fail(long position, string what) => IpcErrors.Throw(_inputOffset + position, $"message metadata, {what}");
    }
}
