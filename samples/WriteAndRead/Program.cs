// Writes a table as LZ4_FRAME-compressed Arrow IPC, as a stream (ArrowStreamWriter) and as a file (ArrowFileWriter),
// with ArrowLz4Fast compressing, reads both back with ArrowLz4Fast decompressing, and checks every value.
//
//   dotnet run -c Release --project samples/WriteAndRead
//
// Exits non-zero if a value read back differs from the one written.
using System;
using System.Globalization;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast;

const int BatchCount = 4;
const int RowsPerBatch = 50_000;
var factory = new Lz4FastCodecFactory();
RecordBatch[] batches = Enumerable.Range(0, BatchCount).Select(b => MakeBatch(b * RowsPerBatch, RowsPerBatch)).ToArray();
Schema schema = batches[0].Schema;

// Writing: CompressionCodec says which codec the batches use, CompressionCodecFactory who provides it.
var lz4 = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory };
var lz4Level9 = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory, CompressionLevel = 9 };

byte[] plainStream = WriteStream(new IpcOptions());
byte[] lz4Stream = WriteStream(lz4);
byte[] lz4Level9Stream = WriteStream(lz4Level9);
byte[] lz4File = WriteFile(lz4);

Console.WriteLine($"{BatchCount} batches x {RowsPerBatch:N0} rows ({string.Join(", ", schema.FieldsList.Select(f => f.Name + ": " + f.DataType.Name))})");
Console.WriteLine($"  stream, uncompressed:        {plainStream.Length,12:N0} bytes");
Console.WriteLine($"  stream, LZ4_FRAME:           {lz4Stream.Length,12:N0} bytes ({100.0 * lz4Stream.Length / plainStream.Length:F1}%)");
Console.WriteLine($"  stream, LZ4_FRAME level 9:   {lz4Level9Stream.Length,12:N0} bytes ({100.0 * lz4Level9Stream.Length / plainStream.Length:F1}%)");
Console.WriteLine($"  file,   LZ4_FRAME:           {lz4File.Length,12:N0} bytes");

int failures = 0;

// Reading a stream: the same one-line registration as for any LZ4 stream.
foreach ((string name, byte[] bytes) in new[] { ("LZ4_FRAME stream", lz4Stream), ("LZ4_FRAME level 9 stream", lz4Level9Stream) })
{
    using var reader = new ArrowStreamReader(new MemoryStream(bytes), factory);
    int index = 0;
    RecordBatch? batch;
    while ((batch = reader.ReadNextRecordBatch()) is not null)
    {
        using (batch)
            failures += Compare($"{name} batch {index}", batches[index], batch);
        index++;
    }
    failures += index == BatchCount ? 0 : Fail($"{name}: read {index} batches, wrote {BatchCount}");
    Console.WriteLine($"Read back the {name}: {index} batches");
}

// Reading a file: ArrowFileReader takes the factory too, and reads batches by index from the footer.
using (var fileReader = new ArrowFileReader(new MemoryStream(lz4File), factory))
{
    int count = await fileReader.RecordBatchCountAsync();
    failures += count == BatchCount ? 0 : Fail($"file: footer lists {count} batches, wrote {BatchCount}");
    for (int index = count - 1; index >= 0; index--)
    {
        using RecordBatch batch = await fileReader.ReadRecordBatchAsync(index);
        failures += Compare($"file batch {index}", batches[index], batch);
    }
    Console.WriteLine($"Read back the LZ4_FRAME file: {count} batches, last to first");
}

foreach (RecordBatch batch in batches)
    batch.Dispose();
if (failures != 0)
{
    Console.Error.WriteLine($"FAILED: {failures} differences");
    return 1;
}
Console.WriteLine($"Every value read back equals the value written ({3 * BatchCount * RowsPerBatch * schema.FieldsList.Count:N0} values compared).");
return 0;

byte[] WriteStream(IpcOptions options) => Write(output => new ArrowStreamWriter(output, schema, leaveOpen: true, options));

byte[] WriteFile(IpcOptions options) => Write(output => new ArrowFileWriter(output, schema, leaveOpen: true, options));

// ArrowFileWriter is an ArrowStreamWriter that adds the file's magic and footer in WriteEnd.
byte[] Write(Func<Stream, ArrowStreamWriter> createWriter)
{
    using var output = new MemoryStream();
    using (ArrowStreamWriter writer = createWriter(output))
    {
        foreach (RecordBatch batch in batches)
            writer.WriteRecordBatch(batch);
        writer.WriteEnd();
    }
    return output.ToArray();
}

// Sensor-like data: ids, a slowly varying reading with some nulls, a timestamp, and a repetitive label.
static RecordBatch MakeBatch(int first, int rows)
{
    var id = new Int64Array.Builder();
    var reading = new DoubleArray.Builder();
    var at = new TimestampArray.Builder(TimeUnit.Millisecond, "UTC");
    var label = new StringArray.Builder();
    var start = new DateTimeOffset(2024, 1, 1, 0, 0, 0, TimeSpan.Zero);
    for (int r = 0; r < rows; r++)
    {
        int i = first + r;
        id.Append(i);
        if (i % 17 == 0)
            reading.AppendNull();
        else
            reading.Append(Math.Round(20 + 5 * Math.Sin(i / 500.0), 2));
        at.Append(start.AddSeconds(i));
        label.Append(string.Create(CultureInfo.InvariantCulture, $"sensor-{i % 32:D2}/{(i % 3 == 0 ? "ok" : "warm")}"));
    }
    return new RecordBatch.Builder()
        .Append("id", nullable: false, id.Build())
        .Append("reading", nullable: true, reading.Build())
        .Append("at", nullable: false, at.Build())
        .Append("label", nullable: false, label.Build())
        .Build();
}

static int Compare(string what, RecordBatch expected, RecordBatch actual)
{
    if (expected.Length != actual.Length || expected.ColumnCount != actual.ColumnCount)
        return Fail($"{what}: {actual.Length} rows x {actual.ColumnCount} columns, wrote {expected.Length} x {expected.ColumnCount}");
    int differences = 0;
    for (int c = 0; c < expected.ColumnCount; c++)
    {
        IArrowArray e = expected.Column(c), a = actual.Column(c);
        for (int i = 0; i < e.Length; i++)
        {
            bool same = (e, a) switch
            {
                (Int64Array x, Int64Array y) => x.GetValue(i) == y.GetValue(i),
                (DoubleArray x, DoubleArray y) => x.GetValue(i) == y.GetValue(i),
                (TimestampArray x, TimestampArray y) => x.GetValue(i) == y.GetValue(i),
                (StringArray x, StringArray y) => x.GetString(i) == y.GetString(i),
                _ => false,
            };
            if (!same && differences++ < 3)
                Fail($"{what}: column {c} row {i} differs");
        }
    }
    return differences;
}

static int Fail(string message)
{
    Console.Error.WriteLine(message);
    return 1;
}
