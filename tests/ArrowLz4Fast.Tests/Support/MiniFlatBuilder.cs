using System;
using System.Buffers.Binary;
using System.Collections.Generic;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Builds small flatbuffers by hand, tables sharing children included (which no flatbuffers builder API makes
    /// easy): tables of 1-byte scalars and uoffsets, and vectors of uoffsets. Each object is laid out before the
    /// objects it refers to, so every uoffset points forward as the format requires.
    /// </summary>
    internal sealed class MiniFlatBuilder
    {
        private readonly List<((int Index, object Value)[]? Fields, int[]? Elements)> _objects = new();

        private readonly record struct Ref(int Object);

        public static object Byte(int value) => (byte)value;

        public static object Offset(int obj) => new Ref(obj);

        /// <summary>A vector of uoffsets to <paramref name="objects"/>, as a field value.</summary>
        public object Vector(int[] objects)
        {
            _objects.Add((null, objects));
            return new Ref(_objects.Count - 1);
        }

        /// <summary>A table with the given (field index, value) pairs; returns the object's number.</summary>
        public int Table((int Index, object Value)[] fields)
        {
            _objects.Add((fields, null));
            return _objects.Count - 1;
        }

        public byte[] Finish(int root, out int length)
        {
            // Reverse creation order: parents (created last) first. A table is its vtable then its inline part.
            var target = new int[_objects.Count];
            var start = new int[_objects.Count];
            int position = 4;
            for (int i = _objects.Count - 1; i >= 0; i--)
            {
                start[i] = position;
                var (fields, elements) = _objects[i];
                if (fields is not null)
                {
                    position += VTableSize(fields);
                    target[i] = position;
                    position += 4 + (4 * fields.Length);
                }
                else
                {
                    target[i] = position;
                    position += 4 + (4 * elements!.Length);
                }
            }
            length = position;
            byte[] bytes = new byte[length];
            BinaryPrimitives.WriteInt32LittleEndian(bytes, target[root]);
            for (int i = 0; i < _objects.Count; i++)
            {
                var (fields, elements) = _objects[i];
                int t = target[i];
                if (fields is null)
                {
                    BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(t), elements!.Length);
                    for (int e = 0; e < elements.Length; e++)
                        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(t + 4 + (4 * e)), target[elements[e]] - (t + 4 + (4 * e)));
                    continue;
                }
                int vt = start[i];
                BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(vt), (ushort)VTableSize(fields));
                BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(vt + 2), (ushort)(4 + (4 * fields.Length)));
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(t), t - vt);
                for (int k = 0; k < fields.Length; k++)
                {
                    int at = t + 4 + (4 * k);
                    BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(vt + 4 + (2 * fields[k].Index)), (ushort)(4 + (4 * k)));
                    if (fields[k].Value is Ref r)
                        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(at), target[r.Object] - at);
                    else
                        bytes[at] = (byte)fields[k].Value;
                }
            }
            return bytes;
        }

        private static int VTableSize((int Index, object Value)[] fields)
        {
            int max = -1;
            foreach (var (index, _) in fields)
                max = Math.Max(max, index);
            return (4 + (2 * (max + 1)) + 3) & ~3;
        }
    }
}
