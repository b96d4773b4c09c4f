using System;
using Apache.Arrow;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>Sizes and byte-for-byte comparison of the buffers behind record batches.</summary>
    public static class ArrowBufferBytes
    {
        public static long Of(RecordBatch batch)
        {
            long total = 0;
            for (int i = 0; i < batch.ColumnCount; i++)
                total += Of(batch.Column(i).Data);
            return total;
        }

        private static long Of(ArrayData data)
        {
            long total = 0;
            foreach (ArrowBuffer buffer in data.Buffers ?? System.Array.Empty<ArrowBuffer>())
                total += buffer.Length;
            foreach (ArrayData child in Children(data))
                total += Of(child);
            if (data.Dictionary != null)
                total += Of(data.Dictionary);
            return total;
        }

        // Arrays built in memory may have no children array at all; read ones have an empty one.
        private static ArrayData[] Children(ArrayData data) => data.Children ?? System.Array.Empty<ArrayData>();

        /// <summary>
        /// Whether two batches read from the same stream hold the same bytes in every buffer, children and
        /// dictionaries included; <paramref name="difference"/> says where they first differ.
        /// </summary>
        public static bool SameBytes(RecordBatch a, RecordBatch b, out string difference)
        {
            difference = "";
            if (a.Length != b.Length || a.ColumnCount != b.ColumnCount)
            {
                difference = $"shape {a.Length}x{a.ColumnCount} vs {b.Length}x{b.ColumnCount}";
                return false;
            }
            for (int i = 0; i < a.ColumnCount; i++)
            {
                if (!SameBytes(a.Column(i).Data, b.Column(i).Data, $"column {a.Schema.GetFieldByIndex(i).Name}", out difference))
                    return false;
            }
            return true;
        }

        private static bool SameBytes(ArrayData a, ArrayData b, string where, out string difference)
        {
            difference = "";
            if (a.Length != b.Length || a.NullCount != b.NullCount || a.Offset != b.Offset
                || a.Buffers.Length != b.Buffers.Length || Children(a).Length != Children(b).Length)
            {
                difference = $"{where}: array shape differs";
                return false;
            }
            for (int i = 0; i < a.Buffers.Length; i++)
            {
                ReadOnlySpan<byte> x = a.Buffers[i].Span, y = b.Buffers[i].Span;
                if (!x.SequenceEqual(y))
                {
                    int at = Math.Min(x.Length, y.Length);
                    for (int k = 0; k < at; k++)
                    {
                        if (x[k] != y[k]) { at = k; break; }
                    }
                    difference = $"{where}: buffer {i} differs at byte {at} (lengths {x.Length} and {y.Length})";
                    return false;
                }
            }
            for (int i = 0; i < Children(a).Length; i++)
            {
                if (!SameBytes(Children(a)[i], Children(b)[i], $"{where} child {i}", out difference))
                    return false;
            }
            if ((a.Dictionary == null) != (b.Dictionary == null))
            {
                difference = $"{where}: dictionary present on one side only";
                return false;
            }
            return a.Dictionary == null || SameBytes(a.Dictionary, b.Dictionary!, $"{where} dictionary", out difference);
        }
    }
}
