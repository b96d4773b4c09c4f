using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;

namespace ArrowLz4Fast.Samples
{
    /// <summary>A wide table of the sample (ids, prices, categories, labels), and the checks it needs.</summary>
    internal static class SampleTable
    {
        /// <summary>Columns cycle through int64 ids, double prices, int32 categories and string labels.</summary>
        public static RecordBatch Make(int rows, int columns, int seed)
        {
            var random = new Random(seed);
            var schema = new Schema.Builder();
            var arrays = new IArrowArray[columns];
            for (int c = 0; c < columns; c++)
            {
                switch (c % 4)
                {
                    case 0:
                        var ids = new Int64Array.Builder();
                        for (int r = 0; r < rows; r++) ids.Append(1_000_000L * c + r * 3 + random.Next(3));
                        arrays[c] = ids.Build();
                        schema.Field(f => f.Name($"id_{c}").DataType(Int64Type.Default).Nullable(false));
                        break;
                    case 1:
                        var prices = new DoubleArray.Builder();
                        for (int r = 0; r < rows; r++) prices.Append(Math.Round(random.NextDouble() * 1000, 2));
                        arrays[c] = prices.Build();
                        schema.Field(f => f.Name($"price_{c}").DataType(DoubleType.Default).Nullable(false));
                        break;
                    case 2:
                        var categories = new Int32Array.Builder();
                        for (int r = 0; r < rows; r++) categories.Append(random.Next(16));
                        arrays[c] = categories.Build();
                        schema.Field(f => f.Name($"category_{c}").DataType(Int32Type.Default).Nullable(false));
                        break;
                    default:
                        var labels = new StringArray.Builder();
                        for (int r = 0; r < rows; r++)
                        {
                            if (r % 17 == 0) labels.AppendNull();
                            else labels.Append($"item {random.Next(500)} of lot {c}");
                        }
                        arrays[c] = labels.Build();
                        schema.Field(f => f.Name($"label_{c}").DataType(StringType.Default).Nullable(true));
                        break;
                }
            }
            return new RecordBatch(schema.Build(), arrays, rows);
        }

        /// <summary>The batch's length as an IPC stream, LZ4-compressed with <paramref name="factory"/> or uncompressed.</summary>
        public static long IpcLength(RecordBatch batch, ICompressionCodecFactory? factory)
        {
            var options = factory is null ? new IpcOptions() : new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory };
            using var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, batch.Schema, leaveOpen: true, options))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.Length;
        }

        /// <summary>Whether two tables hold the same batches: lengths, names, types, nulls and every value.</summary>
        public static bool Same(IReadOnlyList<RecordBatch> expected, IReadOnlyList<RecordBatch> actual)
        {
            if (expected.Count != actual.Count)
                return false;
            for (int b = 0; b < expected.Count; b++)
            {
                RecordBatch want = expected[b], got = actual[b];
                if (want.Length != got.Length || want.ColumnCount != got.ColumnCount)
                    return false;
                for (int c = 0; c < want.ColumnCount; c++)
                {
                    if (want.Schema.FieldsList[c].Name != got.Schema.FieldsList[c].Name || !Same(want.Column(c), got.Column(c)))
                        return false;
                }
            }
            return true;
        }

        private static bool Same(IArrowArray want, IArrowArray got)
        {
            if (want.Length != got.Length || want.NullCount != got.NullCount || want.Data.DataType.TypeId != got.Data.DataType.TypeId)
                return false;
            return (want, got) switch
            {
                (Int64Array a, Int64Array b) => a.Values.SequenceEqual(b.Values),
                (DoubleArray a, DoubleArray b) => a.Values.SequenceEqual(b.Values),
                (Int32Array a, Int32Array b) => a.Values.SequenceEqual(b.Values),
                (StringArray a, StringArray b) => SameStrings(a, b),
                _ => false,
            };
        }

        private static bool SameStrings(StringArray a, StringArray b)
        {
            for (int i = 0; i < a.Length; i++)
            {
                if (a.IsNull(i) != b.IsNull(i) || !string.Equals(a.GetString(i), b.GetString(i), StringComparison.Ordinal))
                    return false;
            }
            return true;
        }
    }
}
