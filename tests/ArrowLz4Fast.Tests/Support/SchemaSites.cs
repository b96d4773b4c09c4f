using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Every vtable, field offset, uoffset, vector length and union type of a Schema message, each with the bytes that
    /// move it out of its table or the metadata (or make the union type unknown): the sites the verifier must refuse.
    /// </summary>
    internal static class SchemaSites
    {
        /// <summary>Write <paramref name="Value"/> at <paramref name="Offset"/> (absolute in the stream); the error names <paramref name="Offset"/>.</summary>
        internal readonly record struct Site(int Offset, string Kind, byte[] Value);

        public static List<Site> Of(byte[] bytes, IpcMutator.Message message)
        {
            var walk = new Walker(bytes, message);
            walk.Message();
            return walk.Sites;
        }

        private sealed class Walker
        {
            private readonly byte[] _bytes;
            private readonly int _base;
            private readonly int _length;
            private readonly FlatReader _reader;
            private readonly HashSet<int> _seen = new();

            public Walker(byte[] bytes, IpcMutator.Message message)
            {
                _bytes = bytes;
                _base = message.Metadata;
                _length = message.MetadataLength;
                _reader = new FlatReader(bytes, _base, _length, _base);
            }

            public List<Site> Sites { get; } = new();

            public void Message()
            {
                Pointer(0);
                FlatTable root = Table(0, "Message");
                Union(root, 1);
                Schema(Sub(root, 2));
                KeyValues(root, 4);
            }

            private void Schema(FlatTable schema)
            {
                foreach (FlatTable field in Tables(schema, 1))
                    Field(field);
                KeyValues(schema, 2);
                Vector(schema, 3, 8);
            }

            private void Field(FlatTable field)
            {
                Vector(field, 0, 1);
                Union(field, 2);
                int type = _reader.UInt8(field, 2, 0, "type");
                FlatTable typeTable = Sub(field, 3);
                if (typeTable.Exists && type == 10)
                    Vector(typeTable, 1, 1);
                if (typeTable.Exists && type == 14)
                    Vector(typeTable, 1, 4);
                FlatTable encoding = Sub(field, 4);
                if (encoding.Exists)
                    Sub(encoding, 1);
                foreach (FlatTable child in Tables(field, 5))
                    Field(child);
                KeyValues(field, 6);
            }

            private void KeyValues(FlatTable table, int index)
            {
                foreach (FlatTable pair in Tables(table, index))
                {
                    Vector(pair, 0, 1);
                    Vector(pair, 1, 1);
                }
            }

            // A table reached through the uoffset at position: its vtable moved outside the metadata, every field offset
            // of its vtable just past its end.
            private FlatTable Table(int uoffsetAt, string what)
            {
                FlatTable table = _reader.TableAt(uoffsetAt, what);
                Add(table.Position, "vtable of " + what, Int32(table.Position - _length));
                for (int slot = 4; slot + 2 <= table.VTableSize; slot += 2)
                {
                    if (BinaryPrimitives.ReadUInt16LittleEndian(_bytes.AsSpan(_base + table.VTable + slot)) != 0)
                        Add(table.VTable + slot, $"field offset {(slot - 4) / 2} of {what}", BitConverter.GetBytes((ushort)table.TableSize));
                }
                return table;
            }

            private FlatTable Sub(FlatTable table, int index)
            {
                int at = _reader.Field(table, index, 4, "uoffset");
                if (at < 0)
                    return default;
                Pointer(at);
                return Table(at, "table");
            }

            private IEnumerable<FlatTable> Tables(FlatTable table, int index)
            {
                (int position, int count) = Vector(table, index, 4);
                var tables = new List<FlatTable>();
                for (int i = 0; i < count; i++)
                {
                    Pointer(position + (4 * i));
                    tables.Add(Table(position + (4 * i), "table in a vector"));
                }
                return tables;
            }

            private (int Position, int Count) Vector(FlatTable table, int index, int elementSize)
            {
                int at = _reader.Field(table, index, 4, "uoffset");
                if (at < 0)
                    return (0, 0);
                Pointer(at);
                (int position, int count) = _reader.Vector(table, index, elementSize, "vector");
                Add(position - 4, "vector length", Int32((_length / elementSize) + 1));
                return (position, count);
            }

            private void Union(FlatTable table, int index)
            {
                int at = _reader.Field(table, index, 1, "union type");
                if (at >= 0)
                    Add(at, "union type", new byte[] { 0xFF });
            }

            // The uoffset at position pointed at the metadata's end.
            private void Pointer(int position) => Add(position, "uoffset", Int32(_length - position));

            private void Add(int position, string kind, byte[] value)
            {
                if (_seen.Add(position))
                    Sites.Add(new Site(_base + position, kind, value));
            }

            private static byte[] Int32(int value) => BitConverter.GetBytes(value);
        }
    }
}
