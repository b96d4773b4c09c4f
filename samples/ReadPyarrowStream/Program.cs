// Reads an LZ4_FRAME-compressed Arrow IPC stream that pyarrow wrote, with ArrowLz4Fast registered in one line.
//
//   dotnet run -c Release --project samples/ReadPyarrowStream [path/to/stream.arrows]
//
// Without an argument it reads the test corpus's strings.arrows (pyarrow 2 x 100,000 rows of two utf8 columns,
// written with IpcWriteOptions(compression="lz4")) and checks every value against the generator's formula
// (gen_pyarrow.py beside the file), so it exits non-zero if anything decodes wrongly.
using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast;
using ArrowLz4Fast.Samples;

string? argument = args.Length > 0 ? args[0] : null;
string path = SampleFiles.Pyarrow("strings.arrows", argument);
bool checkValues = argument is null;
Console.WriteLine($"Reading {Path.GetFileName(path)} ({new FileInfo(path).Length:N0} bytes)");

var clock = Stopwatch.StartNew();
using FileStream stream = File.OpenRead(path);

// The one-line registration: the reader asks the factory for a codec when a batch says its body is LZ4_FRAME.
using var reader = new ArrowStreamReader(stream, new Lz4FastCodecFactory());

int batches = 0;
long rows = 0;
int wrong = 0;
RecordBatch? batch;
while ((batch = reader.ReadNextRecordBatch()) is not null)
{
    using (batch)
    {
        if (batches == 0)
        {
            Console.WriteLine("Schema:");
            foreach (Field field in reader.Schema.FieldsList)
                Console.WriteLine($"  {field.Name}: {field.DataType.Name}{(field.IsNullable ? " (nullable)" : "")}");
        }

        Console.WriteLine($"Batch {batches}: {batch.Length:N0} rows, {batch.ColumnCount} columns");
        for (int c = 0; c < batch.ColumnCount; c++)
        {
            IArrowArray column = batch.Column(c);
            var first = new string[Math.Min(3, column.Length)];
            for (int i = 0; i < first.Length; i++)
                first[i] = Show(column, i);
            Console.WriteLine($"  {reader.Schema.FieldsList[c].Name}: nulls {column.NullCount:N0}, first [{string.Join(", ", first)}]");
        }

        if (checkValues)
            wrong += CheckStrings(batch, rows);
        batches++;
        rows += batch.Length;
    }
}
clock.Stop();

Console.WriteLine($"Read {batches} batches, {rows:N0} rows in {clock.ElapsedMilliseconds} ms");
if (checkValues)
{
    if (batches != 2 || rows != 200_000 || wrong != 0)
    {
        Console.Error.WriteLine($"FAILED: expected 2 batches and 200,000 rows with every value as generated; {wrong} values differ");
        return 1;
    }
    Console.WriteLine("All 400,000 values match the values pyarrow was given.");
}
return 0;

// A readable rendering of one value of the common column types.
static string Show(IArrowArray column, int index)
{
    if (column.IsNull(index))
        return "null";
    return column switch
    {
        StringArray a => "\"" + a.GetString(index) + "\"",
        Int32Array a => a.GetValue(index)!.Value.ToString(CultureInfo.InvariantCulture),
        Int64Array a => a.GetValue(index)!.Value.ToString(CultureInfo.InvariantCulture),
        DoubleArray a => a.GetValue(index)!.Value.ToString(CultureInfo.InvariantCulture),
        BooleanArray a => a.GetValue(index)!.Value ? "true" : "false",
        _ => "<" + column.Data.DataType.Name + ">",
    };
}

// gen_pyarrow.py's strings dataset: row i has s = null when i % 11 == 0, else "word{i % 977} lorem ipsum {i % 13}",
// and t = "k{i}".
static int CheckStrings(RecordBatch batch, long firstRow)
{
    var s = (StringArray)batch.Column("s");
    var t = (StringArray)batch.Column("t");
    int wrong = 0;
    for (int r = 0; r < batch.Length; r++)
    {
        long i = firstRow + r;
        string? expectedS = i % 11 == 0 ? null : string.Create(CultureInfo.InvariantCulture, $"word{i % 977} lorem ipsum {i % 13}");
        string expectedT = string.Create(CultureInfo.InvariantCulture, $"k{i}");
        if (s.GetString(r) != expectedS || s.IsNull(r) != (expectedS is null))
            wrong++;
        if (t.GetString(r) != expectedT)
            wrong++;
    }
    return wrong;
}
