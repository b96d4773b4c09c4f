using System;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Tables of a realistic shape, deterministic for a seed.</summary>
    internal static class TestTables
    {
        /// <summary>ints, doubles, strings, a nullable column and, optionally, an incompressible binary column.</summary>
        public static RecordBatch Realistic(int rows, int seed, bool withNoise = true)
        {
            var random = new Random(seed);
            var schema = new Schema.Builder()
                .Field(f => f.Name("id").DataType(Int64Type.Default).Nullable(false))
                .Field(f => f.Name("bucket").DataType(Int32Type.Default).Nullable(false))
                .Field(f => f.Name("price").DataType(DoubleType.Default).Nullable(false))
                .Field(f => f.Name("label").DataType(StringType.Default).Nullable(true))
                .Field(f => f.Name("score").DataType(Int32Type.Default).Nullable(true));
            if (withNoise)
                schema = schema.Field(f => f.Name("noise").DataType(BinaryType.Default).Nullable(false));

            var id = new Int64Array.Builder();
            var bucket = new Int32Array.Builder();
            var price = new DoubleArray.Builder();
            var label = new StringArray.Builder();
            var score = new Int32Array.Builder();
            var noise = new BinaryArray.Builder();
            Span<byte> bytes = stackalloc byte[32];
            for (int i = 0; i < rows; i++)
            {
                id.Append(1_000_000_000L + i);
                bucket.Append(i % 1000);
                price.Append(Math.Round(random.NextDouble() * 1000, 2));
                if (i % 11 == 0) label.AppendNull(); else label.Append($"word{i % 977} lorem ipsum {i % 13}");
                if (i % 7 == 0) score.AppendNull(); else score.Append(random.Next(100));
                random.NextBytes(bytes);
                noise.Append(bytes);
            }

            IArrowArray[] columns = withNoise
                ? new IArrowArray[] { id.Build(), bucket.Build(), price.Build(), label.Build(), score.Build(), noise.Build() }
                : new IArrowArray[] { id.Build(), bucket.Build(), price.Build(), label.Build(), score.Build() };
            return new RecordBatch(schema.Build(), columns, rows);
        }

        public static RecordBatch[] Batches(int count, int rows, int seed, bool withNoise = true) =>
            Enumerable.Range(0, count).Select(i => Realistic(rows, seed + i, withNoise)).ToArray();
    }
}
