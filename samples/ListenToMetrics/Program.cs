// Listens to ArrowLz4Fast's meter while reading a real pyarrow stream and writing one, and prints the counters:
// how many buffers the direct decoder handled, how many fell back to K4os (and why), the decompressed bytes by
// path, and on the writing side how many buffers became LZ4 frames or were stored raw.
//
//   dotnet run -c Release --project samples/ListenToMetrics [path/to/lz4-stream.arrows]
//
// The same counters are visible with `dotnet-counters monitor --counters ArrowLz4Fast -n <process>` or
// OpenTelemetry's AddMeter("ArrowLz4Fast"). Exits non-zero if the counters do not tell the expected story.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast;
using ArrowLz4Fast.Samples;

// Sums per "instrument{tag=value}", filled from whatever thread records.
var totals = new ConcurrentDictionary<string, long>();
using var listener = new MeterListener();
listener.InstrumentPublished = (instrument, l) =>
{
    if (instrument.Meter.Name == ArrowLz4FastMetrics.MeterName)
        l.EnableMeasurementEvents(instrument);
};
listener.SetMeasurementEventCallback<long>((instrument, value, tags, state) =>
{
    string key = instrument.Name;
    foreach (KeyValuePair<string, object?> tag in tags)
        key += $"{{{tag.Key}={tag.Value}}}";
    totals.AddOrUpdate(key, value, (_, sum) => sum + value);
});
listener.Start();

// Reading: every LZ4 buffer of a pyarrow stream is decoded by the direct decoder.
string path = SampleFiles.Pyarrow("strings.arrows", args.Length > 0 ? args[0] : null);
long rows = 0;
using (var reader = new ArrowStreamReader(File.OpenRead(path), new Lz4FastCodecFactory()))
{
    RecordBatch? batch;
    while ((batch = reader.ReadNextRecordBatch()) is not null)
    {
        using (batch)
            rows += batch.Length;
    }
}
Console.WriteLine($"Read {Path.GetFileName(path)}: {rows:N0} rows");
Print("decompress");

// Writing: a compressible column becomes LZ4 frames; random bytes would grow, so the writer stores them raw.
var random = new Random(42);
var text = new StringArray.Builder();
var noise = new BinaryArray.Builder();
var bytes = new byte[64];
for (int i = 0; i < 20_000; i++)
{
    text.Append(FormattableString.Invariant($"event {i % 40} ok"));
    random.NextBytes(bytes);
    noise.Append(bytes.AsSpan());
}
using (RecordBatch batch = new RecordBatch.Builder().Append("text", false, text.Build()).Append("noise", false, noise.Build()).Build())
using (var writer = new ArrowStreamWriter(Stream.Null, batch.Schema, leaveOpen: false,
    new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() }))
{
    writer.WriteRecordBatch(batch);
    writer.WriteEnd();
}
Console.WriteLine("Wrote 20,000 rows of repetitive text and random bytes");
Print("compress");

long direct = Get($"{ArrowLz4FastMetrics.DecompressCounterName}{{{ArrowLz4FastMetrics.PathTag}=direct}}");
long fallback = totals.Where(p => p.Key.StartsWith(ArrowLz4FastMetrics.DeclinedDecompressCounterName, StringComparison.Ordinal)).Sum(p => p.Value);
long directBytes = Get($"{ArrowLz4FastMetrics.DecompressedBytesCounterName}{{{ArrowLz4FastMetrics.PathTag}=direct}}");
long frames = Get(ArrowLz4FastMetrics.CompressCounterName);
long storedRaw = Get(ArrowLz4FastMetrics.CompressDeclinedCounterName);
Console.WriteLine($"Summary: {direct} buffers ({directBytes:N0} bytes) decoded directly, {fallback} declined; "
    + $"{frames} buffers written as LZ4 frames, {storedRaw} stored raw.");

// pyarrow never writes dictionary-ID frames, so everything goes the direct way; the random column cannot shrink.
if (direct == 0 || directBytes == 0 || fallback != 0 || frames == 0 || storedRaw == 0)
{
    Console.Error.WriteLine("FAILED: expected direct decodes only, and both LZ4 frames and stored-raw buffers when writing");
    return 1;
}
return 0;

long Get(string key) => totals.TryGetValue(key, out long value) ? value : 0;

void Print(string prefix)
{
    foreach (KeyValuePair<string, long> pair in totals.Where(p => p.Key.StartsWith("arrowlz4fast." + prefix, StringComparison.Ordinal)).OrderBy(p => p.Key, StringComparer.Ordinal))
        Console.WriteLine($"  {pair.Key,-52} {pair.Value,12:N0}");
}
