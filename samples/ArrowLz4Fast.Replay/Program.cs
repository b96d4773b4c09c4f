using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Replay;

// Replays every bundled real IPC stream (the committed corpus, plus a table written by Arrow .NET's own writer)
// with the official codec factory and with ArrowLz4Fast's, checks both read identical batches, and prints
// throughput, managed allocation per read and the share of LZ4 buffers that took the direct path. Arrow's default
// allocator serves the first two columns; the third is ArrowLz4Fast with the package's SlabMemoryAllocator, the
// setup the README recommends, against the official codec with Arrow's default allocator.
// A quick demo, not a benchmark: the committed BenchmarkDotNet results are the numbers to quote.

TimeSpan budget = TimeSpan.FromMilliseconds(args.Length > 0 && int.TryParse(args[0], out int ms) ? ms : 250);
var official = new CompressionCodecFactory();
var fast = new Lz4FastCodecFactory(new CompressionCodecFactory()); // the inner factory serves ZSTD streams
var slab = new SlabMemoryAllocator();

var streams = new List<ReplayStream>();
foreach (string path in Directory.EnumerateFiles(Path.Combine(RepositoryPaths.Corpus, "ipc"), "*.arrow*", SearchOption.AllDirectories)
    .Where(p => p.EndsWith(".arrows", StringComparison.Ordinal) || p.EndsWith(".arrow", StringComparison.Ordinal))
    .OrderBy(p => p, StringComparer.Ordinal))
{
    string name = Path.GetRelativePath(Path.Combine(RepositoryPaths.Corpus, "ipc"), path).Replace('\\', '/');
    streams.Add(new ReplayStream(name, File.ReadAllBytes(path), path.EndsWith(".arrow", StringComparison.Ordinal)));
}
streams.Add(new ReplayStream("dotnet/orders.arrows (generated)",
    SyntheticTable.WriteStream(SyntheticTable.Batches(), official), IsFile: false));

Console.WriteLine($"ArrowLz4Fast replay: {streams.Count} streams, {budget.TotalMilliseconds:0} ms per stream and codec, .NET {Environment.Version}, {Environment.ProcessorCount} cores");
Console.WriteLine();
Console.WriteLine($"{"",-44} {"official",10} {"fast",10} {"",8} {"fast+slab",10} {"",8}");
Console.WriteLine($"{"stream",-36} {"MiB",7} {"native",10} {"native",10} {"speedup",8} {"allocator",10} {"speedup",8} {"alloc/read official",20} {"fast",10} {"direct",8}  same");
Console.WriteLine(new string('-', 144));

using var paths = new PathCounter();
double officialSeconds = 0, fastSeconds = 0, slabSeconds = 0;
long totalBytes = 0, totalDirect = 0, totalDeclined = 0;
int differing = 0;
var stopwatch = Stopwatch.StartNew();
foreach (ReplayStream stream in streams)
{
    // Verify first: both codecs must read the same bytes into every buffer.
    List<RecordBatch> expected = stream.ReadAll(official);
    paths.Reset();
    List<RecordBatch> actual = stream.ReadAll(fast);
    long direct = paths.Direct, declined = paths.Declined;
    string verdict = "yes";
    if (expected.Count != actual.Count)
        verdict = $"NO: {expected.Count} vs {actual.Count} batches";
    for (int i = 0; i < expected.Count && verdict == "yes"; i++)
    {
        if (!ArrowBufferBytes.SameBytes(expected[i], actual[i], out string difference))
            verdict = $"NO: batch {i}: {difference}";
    }
    long bytes = expected.Sum(ArrowBufferBytes.Of);
    foreach (RecordBatch batch in expected.Concat(actual))
        batch.Dispose();
    if (verdict != "yes")
        differing++;

    (double officialRate, long officialAlloc, double officialTime) = Measure(stream, official, null, bytes, budget);
    (double fastRate, long fastAlloc, double fastTime) = Measure(stream, fast, null, bytes, budget);
    (double slabRate, _, double slabTime) = Measure(stream, fast, slab, bytes, budget);
    officialSeconds += officialTime;
    fastSeconds += fastTime;
    slabSeconds += slabTime;
    totalBytes += bytes;
    totalDirect += direct;
    totalDeclined += declined;

    string share = direct + declined == 0 ? "no LZ4" : $"{100.0 * direct / (direct + declined):0.#} %";
    Console.WriteLine(
        $"{stream.Name,-36} {bytes / 1048576.0,7:0.00} {officialRate,5:0} MB/s {fastRate,5:0} MB/s {fastRate / officialRate,7:0.00}x {slabRate,5:0} MB/s {slabRate / officialRate,7:0.00}x {Size(officialAlloc),20} {Size(fastAlloc),10} {share,8}  {verdict}");
}

Console.WriteLine(new string('-', 144));
Console.WriteLine(
    $"{"all streams (time-weighted)",-36} {totalBytes / 1048576.0,7:0.00} {totalBytes / officialSeconds / 1e6,5:0} MB/s {totalBytes / fastSeconds / 1e6,5:0} MB/s {officialSeconds / fastSeconds,7:0.00}x "
    + $"{totalBytes / slabSeconds / 1e6,5:0} MB/s {officialSeconds / slabSeconds,7:0.00}x "
    + $"{"",20} {"",10} {100.0 * totalDirect / Math.Max(1, totalDirect + totalDeclined),6:0.#} %  {(differing == 0 ? "yes" : $"{differing} differ")}");
Console.WriteLine();
Console.WriteLine($"MB/s = uncompressed Arrow buffer bytes read per second; native = Arrow's default allocator; fast+slab allocator = ArrowLz4Fast");
Console.WriteLine($"with SlabMemoryAllocator; speed-ups against official + native; alloc/read = managed bytes allocated per whole read of the stream;");
Console.WriteLine($"direct = LZ4 buffers decoded by the direct path ({totalDirect} direct, {totalDeclined} declined). Took {stopwatch.Elapsed.TotalSeconds:0.0} s.");
return differing == 0 ? 0 : 1;

static (double Rate, long AllocatedPerRead, double SecondsPerByteWeighted) Measure(
    ReplayStream stream, ICompressionCodecFactory factory, MemoryAllocator? allocator, long bytes, TimeSpan budget)
{
    stream.Drain(factory, allocator); // warm up
    int reads = 0;
    long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
    var watch = Stopwatch.StartNew();
    while (watch.Elapsed < budget || reads < 3)
    {
        stream.Drain(factory, allocator);
        reads++;
    }
    watch.Stop();
    long allocated = (GC.GetAllocatedBytesForCurrentThread() - allocatedBefore) / reads;
    double secondsPerRead = watch.Elapsed.TotalSeconds / reads;
    return (bytes / secondsPerRead / 1e6, allocated, secondsPerRead);
}

static string Size(long bytes) => bytes switch
{
    < 10 * 1024 => $"{bytes} B",
    < 10 * 1024 * 1024 => $"{bytes / 1024.0:0.0} KiB",
    _ => $"{bytes / 1048576.0:0.0} MiB",
};
