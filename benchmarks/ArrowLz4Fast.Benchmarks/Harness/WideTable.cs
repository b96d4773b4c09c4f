using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// A wide table as a data scientist hands one over in Feather V2: 200 columns of mixed types (ids, timestamps,
    /// skewed ints, prices, nullable doubles, flags, free text, and categorical columns dictionary-encoded as pandas'
    /// categoricals are), written LZ4-compressed by <c>ArrowFileWriter</c> or <c>ArrowStreamWriter</c> with the package's
    /// codec, one LZ4 frame per buffer, as pyarrow's <c>feather.write_feather</c> writes them (64 Ki-row batches by default).
    /// </summary>
    public static class WideTable
    {
        public const int Columns = 200;
        public const int FeatherRowsPerBatch = 65_536;

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

        /// <summary>The kinds, in column order, repeated: column c is of kind c % 8.</summary>
        private static IArrowType Kind(int c, DictionaryType category) => (c % 8) switch
        {
            0 => Int64Type.Default,
            1 => TimestampType.Default,
            2 => Int32Type.Default,
            3 => category,
            4 => DoubleType.Default,
            5 => DoubleType.Default,
            6 => BooleanType.Default,
            _ => StringType.Default,
        };

        public static Schema Schema { get; } = MakeSchema();

        private static Schema MakeSchema()
        {
            var category = new DictionaryType(Int32Type.Default, StringType.Default, ordered: false);
            var builder = new Schema.Builder();
            for (int c = 0; c < Columns; c++)
                builder.Field(new Field($"c{c:D3}_{(c % 8)}", Kind(c, category), nullable: c % 8 == 5 || c % 8 == 7));
            return builder.Build();
        }

        /// <summary>Batches of <paramref name="rowsPerBatch"/> rows, deterministic for a seed.</summary>
        public static List<RecordBatch> Batches(int batches, int rowsPerBatch, int seed = 46)
        {
            var random = new Random(seed);
            // One dictionary for every categorical column of every batch: Arrow .NET writes a dictionary once per stream.
            var dictionaryBuilder = new StringArray.Builder();
            foreach (string category in Categories)
                dictionaryBuilder.Append(category);
            StringArray dictionary = dictionaryBuilder.Build();
            var result = new List<RecordBatch>(batches);
            long clock = 1_700_000_000_000_000;
            long id = 10_000_000;
            for (int b = 0; b < batches; b++)
            {
                var arrays = new IArrowArray[Columns];
                for (int c = 0; c < Columns; c++)
                    arrays[c] = Column(c, rowsPerBatch, random, dictionary, ref clock, ref id);
                result.Add(new RecordBatch(Schema, arrays, rowsPerBatch));
            }
            return result;
        }

        /// <summary>The batches as an LZ4_FRAME IPC file (<paramref name="file"/>) or stream, written with the package's codec.</summary>
        public static byte[] Write(IReadOnlyList<RecordBatch> batches, bool file)
        {
            using var output = new MemoryStream();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() };
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(output, Schema, leaveOpen: true, options)
                : new ArrowStreamWriter(output, Schema, leaveOpen: true, options))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.ToArray();
        }

        private static IArrowArray Column(int c, int rows, Random random, StringArray dictionary, ref long clock, ref long id)
        {
            switch (c % 8)
            {
                case 0:
                {
                    var builder = new Int64Array.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        builder.Append(id++);
                    return builder.Build();
                }
                case 1:
                {
                    var builder = new TimestampArray.Builder(TimestampType.Default).Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        builder.Append(DateTimeOffset.FromUnixTimeMilliseconds((clock += random.Next(20_000)) / 1000));
                    return builder.Build();
                }
                case 2:
                {
                    var builder = new Int32Array.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        builder.Append(random.Next(4) == 0 ? random.Next(100_000) : random.Next(10));
                    return builder.Build();
                }
                case 3:
                {
                    var indices = new Int32Array.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        indices.Append(Math.Min(random.Next(Categories.Length), random.Next(Categories.Length)));
                    var type = (DictionaryType)Schema.FieldsList[c].DataType;
                    return new DictionaryArray(type, indices.Build(), dictionary);
                }
                case 4:
                {
                    var builder = new DoubleArray.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        builder.Append(Math.Round(random.NextDouble() * 500, 2));
                    return builder.Build();
                }
                case 5:
                {
                    var builder = new DoubleArray.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                    {
                        if (random.Next(3) == 0)
                            builder.AppendNull();
                        else
                            builder.Append(Math.Round(random.NextDouble() * 0.3, 2));
                    }
                    return builder.Build();
                }
                case 6:
                {
                    var builder = new BooleanArray.Builder().Reserve(rows);
                    for (int r = 0; r < rows; r++)
                        builder.Append(random.Next(5) == 0);
                    return builder.Build();
                }
                default:
                {
                    var builder = new StringArray.Builder().Reserve(rows);
                    var text = new System.Text.StringBuilder();
                    for (int r = 0; r < rows; r++)
                    {
                        if (random.Next(10) == 0)
                        {
                            builder.AppendNull();
                            continue;
                        }
                        text.Clear();
                        int words = 1 + random.Next(4);
                        for (int w = 0; w < words; w++)
                            text.Append(w == 0 ? "" : " ").Append(Words[random.Next(Words.Length)]);
                        builder.Append(text.ToString());
                    }
                    return builder.Build();
                }
            }
        }
    }
}
