using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Apache.Arrow.Types;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// An order-lines table of a realistic shape (ids, timestamps, skewed ints, prices, categories, free text),
    /// deterministic for a seed: what a .NET service typically writes, at tens of MiB uncompressed.
    /// </summary>
    public static class SyntheticTable
    {
        public const int DefaultBatches = 8;
        public const int DefaultRowsPerBatch = 65_536;

        private static readonly string[] Categories =
        {
            "books", "electronics", "garden", "toys", "grocery", "apparel", "beauty", "sports", "automotive", "music",
            "office", "pet supplies", "baby", "tools", "jewelry", "health", "movies", "software", "games", "kitchen",
        };

        private static readonly string[] Words =
        {
            "blue", "large", "organic", "wireless", "classic", "pack", "of", "steel", "cotton", "set", "premium", "mini",
            "with", "case", "black", "white", "portable", "kit", "for", "home", "pro", "edition", "travel", "eco",
        };

        public static Schema Schema { get; } = new Schema.Builder()
            .Field(f => f.Name("order_id").DataType(Int64Type.Default).Nullable(false))
            .Field(f => f.Name("created_ms").DataType(Int64Type.Default).Nullable(false))
            .Field(f => f.Name("customer_id").DataType(Int32Type.Default).Nullable(false))
            .Field(f => f.Name("category").DataType(StringType.Default).Nullable(false))
            .Field(f => f.Name("quantity").DataType(Int32Type.Default).Nullable(false))
            .Field(f => f.Name("unit_price").DataType(DoubleType.Default).Nullable(false))
            .Field(f => f.Name("discount").DataType(DoubleType.Default).Nullable(true))
            .Field(f => f.Name("description").DataType(StringType.Default).Nullable(true))
            .Build();

        public static IReadOnlyList<RecordBatch> Batches(int batches = DefaultBatches, int rowsPerBatch = DefaultRowsPerBatch, int seed = 42)
        {
            var random = new Random(seed);
            var result = new List<RecordBatch>(batches);
            long orderId = 10_000_000;
            long clock = 1_700_000_000_000;
            for (int b = 0; b < batches; b++)
                result.Add(Batch(random, rowsPerBatch, ref orderId, ref clock));
            return result;
        }

        /// <summary>Batches of the given row counts, one after the other, deterministic for a seed.</summary>
        public static IReadOnlyList<RecordBatch> BatchesOfRows(IReadOnlyList<int> rowCounts, int seed = 42)
        {
            var random = new Random(seed);
            var result = new List<RecordBatch>(rowCounts.Count);
            long orderId = 10_000_000;
            long clock = 1_700_000_000_000;
            foreach (int rows in rowCounts)
                result.Add(Batch(random, rows, ref orderId, ref clock));
            return result;
        }

        private static RecordBatch Batch(Random random, int rows, ref long orderId, ref long clock)
        {
            var id = new Int64Array.Builder();
            var created = new Int64Array.Builder();
            var customer = new Int32Array.Builder();
            var category = new StringArray.Builder();
            var quantity = new Int32Array.Builder();
            var price = new DoubleArray.Builder();
            var discount = new DoubleArray.Builder();
            var description = new StringArray.Builder();
            for (int i = 0; i < rows; i++)
            {
                id.Append(orderId++);
                clock += random.Next(0, 250);
                created.Append(clock);
                // Few customers place most orders.
                double u = random.NextDouble();
                customer.Append((int)(1_000_000 * u * u * u));
                category.Append(Categories[(int)(Categories.Length * u * u)]);
                quantity.Append(1 + (random.Next(10) == 0 ? random.Next(50) : random.Next(3)));
                price.Append(Math.Round(random.NextDouble() * random.Next(1, 500), 2));
                if (random.Next(4) == 0) discount.Append(Math.Round(random.NextDouble() * 0.3, 2));
                else discount.AppendNull();
                if (random.Next(20) == 0) description.AppendNull();
                else description.Append(
                    $"{Words[random.Next(Words.Length)]} {Words[random.Next(Words.Length)]} {Words[random.Next(Words.Length)]} #{random.Next(10_000)}");
            }
            return new RecordBatch(Schema, new IArrowArray[]
            {
                id.Build(), created.Build(), customer.Build(), category.Build(),
                quantity.Build(), price.Build(), discount.Build(), description.Build(),
            }, rows);
        }

        /// <summary>The batches as an IPC stream compressed by <paramref name="factory"/>'s LZ4_FRAME codec.</summary>
        public static byte[] WriteStream(IReadOnlyList<RecordBatch> batches, ICompressionCodecFactory factory, int? level = null)
        {
            using var stream = new MemoryStream();
            WriteStream(batches, factory, stream, level);
            return stream.ToArray();
        }

        public static void WriteStream(
            IReadOnlyList<RecordBatch> batches, ICompressionCodecFactory factory, Stream stream, int? level = null, MemoryAllocator? allocator = null)
        {
            var options = new IpcOptions
            {
                CompressionCodec = CompressionCodecType.Lz4Frame,
                CompressionCodecFactory = factory,
                CompressionLevel = level,
            };
            using var writer = new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true, options, allocator);
            foreach (RecordBatch batch in batches)
                writer.WriteRecordBatch(batch);
            writer.WriteEnd();
        }

        /// <summary>Bytes of the Arrow buffers of the batches, the size the reader reconstructs.</summary>
        public static long UncompressedBytes(IReadOnlyList<RecordBatch> batches)
        {
            long total = 0;
            foreach (RecordBatch batch in batches)
                total += ArrowBufferBytes.Of(batch);
            return total;
        }
    }
}
