// One codec factory for every Arrow IPC codec: ArrowLz4Fast serves LZ4_FRAME and hands ZSTD to an inner factory,
// here Apache.Arrow.Compression's CompressionCodecFactory.
//
//   dotnet run -c Release --project samples/ZstdWithInnerFactory
//
// Reads pyarrow's ZSTD and LZ4 streams from the test corpus, writes and reads back both codecs, and shows what the
// factory says without an inner factory. Exits non-zero if any of that does not behave as described.
using System;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast;
using ArrowLz4Fast.Samples;

// The registration for data that may use either codec.
var factory = new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
int failures = 0;

// 1. Real pyarrow streams: numeric_zstd.arrows (ZSTD, 4 x 250,000 rows) and strings.arrows (LZ4_FRAME, 2 x 100,000).
foreach ((string name, long expectedRows) in new[] { ("numeric_zstd.arrows", 1_000_000L), ("strings.arrows", 200_000L) })
{
    string path = SampleFiles.Pyarrow(name);
    (int batches, long rows, string firstRow) = ReadAll(File.ReadAllBytes(path), factory);
    Console.WriteLine($"{name,-22} {batches} batches, {rows,9:N0} rows; first row {firstRow}");
    if (rows != expectedRows)
        failures += Fail($"{name}: {rows} rows, expected {expectedRows}");
}

// pyarrow's numeric dataset: a = i % 1000, b = (i * 7919) % 1000003, c = i / 10, d = i % 97 (null when i % 7 == 0).
using (var reader = new ArrowStreamReader(File.OpenRead(SampleFiles.Pyarrow("numeric_zstd.arrows")), factory))
{
    long i = 0;
    int wrong = 0;
    RecordBatch? batch;
    while ((batch = reader.ReadNextRecordBatch()) is not null)
    {
        using (batch)
        {
            var a = (Int32Array)batch.Column("a");
            var b = (Int64Array)batch.Column("b");
            var c = (DoubleArray)batch.Column("c");
            var d = (Int32Array)batch.Column("d");
            for (int r = 0; r < batch.Length; r++, i++)
            {
                if (a.GetValue(r) != i % 1000 || b.GetValue(r) != i * 7919 % 1000003 || c.GetValue(r) != i / 10.0
                    || d.GetValue(r) != (i % 7 == 0 ? null : (int?)(i % 97)))
                    wrong++;
            }
        }
    }
    Console.WriteLine($"numeric_zstd.arrows    {i:N0} rows checked against the generator's formulas, {wrong} differ");
    failures += wrong;
}

// 2. Writing with either codec through the same factory, and reading back.
using (RecordBatch batch = MakeBatch())
{
    foreach (CompressionCodecType codec in new[] { CompressionCodecType.Lz4Frame, CompressionCodecType.Zstd })
    {
        var options = new IpcOptions { CompressionCodec = codec, CompressionCodecFactory = factory };
        using var output = new MemoryStream();
        using (var writer = new ArrowStreamWriter(output, batch.Schema, leaveOpen: true, options))
        {
            writer.WriteRecordBatch(batch);
            writer.WriteEnd();
        }
        (int batches, long rows, string firstRow) = ReadAll(output.ToArray(), factory);
        Console.WriteLine($"wrote {codec,-9} {output.Length,9:N0} bytes, read back {batches} batch, {rows:N0} rows; first row {firstRow}");
        if (rows != batch.Length)
            failures += Fail($"{codec}: read back {rows} rows, wrote {batch.Length}");
    }
}

// 3. Without an inner factory ArrowLz4Fast serves LZ4_FRAME only, and says so when a batch is ZSTD.
try
{
    ReadAll(File.ReadAllBytes(SampleFiles.Pyarrow("numeric_zstd.arrows")), new Lz4FastCodecFactory());
    failures += Fail("new Lz4FastCodecFactory() read a ZSTD stream; it should have thrown NotSupportedException");
}
catch (NotSupportedException e)
{
    Console.WriteLine($"new Lz4FastCodecFactory() on ZSTD: NotSupportedException: {e.Message}");
}

if (failures != 0)
{
    Console.Error.WriteLine($"FAILED: {failures} problems");
    return 1;
}
Console.WriteLine("LZ4_FRAME and ZSTD both read and write through one Lz4FastCodecFactory.");
return 0;

static (int Batches, long Rows, string FirstRow) ReadAll(byte[] bytes, ICompressionCodecFactory codecs)
{
    using var reader = new ArrowStreamReader(new MemoryStream(bytes), codecs);
    int batches = 0;
    long rows = 0;
    string firstRow = "";
    RecordBatch? batch;
    while ((batch = reader.ReadNextRecordBatch()) is not null)
    {
        using (batch)
        {
            if (batches == 0 && batch.Length > 0)
                firstRow = FirstRow(batch);
            batches++;
            rows += batch.Length;
        }
    }
    return (batches, rows, firstRow);
}

static string FirstRow(RecordBatch batch)
{
    var cells = new string[batch.ColumnCount];
    for (int c = 0; c < cells.Length; c++)
    {
        IArrowArray column = batch.Column(c);
        cells[c] = batch.Schema.FieldsList[c].Name + "=" + (column.IsNull(0) ? "null" : column switch
        {
            StringArray s => s.GetString(0),
            Int32Array n => FormattableString.Invariant($"{n.GetValue(0)}"),
            Int64Array n => FormattableString.Invariant($"{n.GetValue(0)}"),
            DoubleArray n => FormattableString.Invariant($"{n.GetValue(0)}"),
            _ => "?",
        });
    }
    return "{" + string.Join(", ", cells) + "}";
}

static RecordBatch MakeBatch()
{
    var n = new Int32Array.Builder();
    var s = new StringArray.Builder();
    for (int i = 0; i < 100_000; i++)
    {
        n.Append(i % 1000);
        s.Append(FormattableString.Invariant($"row {i % 250}"));
    }
    return new RecordBatch.Builder().Append("n", false, n.Build()).Append("s", false, s.Build()).Build();
}

static int Fail(string message)
{
    Console.Error.WriteLine(message);
    return 1;
}
