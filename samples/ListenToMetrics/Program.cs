// Listens to ArrowLz4Fast's meter while reading a real pyarrow stream (through the codec and through
// IpcDecompressingStream) and writing one (through the codec and through IpcCompressingStream), and prints the
// counters per path: buffers, messages, bytes in and bytes out, and the compression ratio each path saw.
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

// Reading through the codec: every LZ4 buffer of a pyarrow stream is decoded by the direct decoder.
string path = SampleFiles.Pyarrow("strings.arrows", args.Length > 0 ? args[0] : null);
long rows = 0;
using (var reader = new ArrowStreamReader(File.OpenRead(path), new Lz4FastCodecFactory()))
    rows += ReadAll(reader);
// Reading through IpcDecompressingStream: the same stream, a message at a time (path "ipc_stream").
using (var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path))))
    rows += ReadAll(reader);
Console.WriteLine($"Read {Path.GetFileName(path)} twice: {rows:N0} rows");
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
{
    using (var writer = new ArrowStreamWriter(Stream.Null, batch.Schema, leaveOpen: false,
        new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() }))
    {
        writer.WriteRecordBatch(batch);
        writer.WriteEnd();
    }
    // The same batch through IpcCompressingStream: Arrow writes it uncompressed, the stream compresses it.
    using (var writer = new ArrowStreamWriter(new IpcCompressingStream(Stream.Null), batch.Schema))
    {
        writer.WriteRecordBatch(batch);
        writer.WriteEnd();
    }
}
Console.WriteLine("Wrote 20,000 rows of repetitive text and random bytes twice");
Print("compress");

long direct = Get(ArrowLz4FastMetrics.DecompressCounterName, ArrowLz4FastMetrics.PathDirect);
long fallback = totals.Where(p => p.Key.StartsWith(ArrowLz4FastMetrics.DeclinedDecompressCounterName, StringComparison.Ordinal)).Sum(p => p.Value);
long directBytes = Get(ArrowLz4FastMetrics.DecompressedBytesCounterName, ArrowLz4FastMetrics.PathDirect);
long frames = Get(ArrowLz4FastMetrics.CompressCounterName, ArrowLz4FastMetrics.PathCodec);
long storedRaw = Get(ArrowLz4FastMetrics.CompressDeclinedCounterName, ArrowLz4FastMetrics.PathCodec);
long messages = Get(ArrowLz4FastMetrics.DecompressMessagesCounterName, ArrowLz4FastMetrics.PathIpcStream);
long written = Get(ArrowLz4FastMetrics.CompressMessagesCounterName, ArrowLz4FastMetrics.PathIpcStream);
Console.WriteLine($"Summary: {direct} buffers ({directBytes:N0} bytes) decoded directly, {fallback} declined; "
    + $"{frames} buffers written as LZ4 frames, {storedRaw} stored raw; {messages} messages read and {written} written by the IPC streams.");
foreach (string p in new[] { ArrowLz4FastMetrics.PathDirect, ArrowLz4FastMetrics.PathIpcStream })
    Console.WriteLine($"  read ratio  {p,-10} {Ratio(Get(ArrowLz4FastMetrics.DecompressedBytesCounterName, p), Get(ArrowLz4FastMetrics.DecompressInputBytesCounterName, p))}");
foreach (string p in new[] { ArrowLz4FastMetrics.PathCodec, ArrowLz4FastMetrics.PathIpcStream })
    Console.WriteLine($"  write ratio {p,-10} {Ratio(Get(ArrowLz4FastMetrics.CompressInputBytesCounterName, p), Get(ArrowLz4FastMetrics.CompressOutputBytesCounterName, p))}");

// pyarrow never writes dictionary-ID frames, so everything goes the direct way; the random column cannot shrink.
if (direct == 0 || directBytes == 0 || fallback != 0 || frames == 0 || storedRaw == 0 || messages == 0 || written == 0)
{
    Console.Error.WriteLine("FAILED: expected direct decodes only, both LZ4 frames and stored-raw buffers when writing, and messages on the IPC stream path");
    return 1;
}
return 0;

static long ReadAll(ArrowStreamReader reader)
{
    long rows = 0;
    RecordBatch? batch;
    while ((batch = reader.ReadNextRecordBatch()) is not null)
    {
        using (batch)
            rows += batch.Length;
    }
    return rows;
}

static string Ratio(long uncompressed, long compressed) => compressed == 0 ? "-" : $"{(double)uncompressed / compressed:F2}x";

long Get(string instrument, string tagValue) =>
    totals.TryGetValue($"{instrument}{{{ArrowLz4FastMetrics.PathTag}={tagValue}}}", out long value) ? value : 0;

void Print(string prefix)
{
    foreach (KeyValuePair<string, long> pair in totals.Where(p => p.Key.StartsWith("arrowlz4fast." + prefix, StringComparison.Ordinal)).OrderBy(p => p.Key, StringComparer.Ordinal))
        Console.WriteLine($"  {pair.Key,-52} {pair.Value,12:N0}");
}
