using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--stream1g</c>: a streaming read of at least 1 GiB of Arrow buffers. The order-lines table in batches of
    /// 64Ki-256Ki rows (8 distinct batches repeated) is written once to a temporary LZ4 IPC stream file; then each
    /// codec x allocator reads it through a 1-16 KiB chunked stream, disposing every batch, in a process of its own,
    /// so that peak RSS (VmHWM) and collection counts belong to that read alone. For the package's allocator it also
    /// reports how long retained memory takes to fall to the cap, and to zero through the idle trim, after the read.
    /// Prints a table and writes it as markdown (default benchmarks/results/stream-1gib.md).
    /// </summary>
    public static class LargeStreamRun
    {
        public const string ParentSwitch = "--stream1g";
        public const string ChildSwitch = "--stream1g-child";

        private static readonly int[] RowCounts = { 131_072, 262_144, 196_608, 98_304, 229_376, 163_840, 65_536, 245_760 };

        /// <summary>The idle trim delay of the package's allocator in these runs (default 30 s), to see it act.</summary>
        private static readonly TimeSpan IdleTrimDelay = TimeSpan.FromSeconds(1);

        private const long SmallCap = 16L << 20;

        private static readonly (string Codec, string Allocator, long Cap)[] Runs =
        {
            ("official", Allocators.Native, 0),
            ("official", Allocators.ArrayPool, 0),
            ("official", Allocators.Slab, -1),
            ("ArrowLz4Fast", Allocators.Native, 0),
            ("ArrowLz4Fast", Allocators.ArrayPool, 0),
            ("ArrowLz4Fast", Allocators.Slab, -1),
            ("ArrowLz4Fast", Allocators.Slab, SmallCap),
        };

        public static int Run(string[] args)
        {
            long targetBytes = (long)ProbeOptions.Option(args, "--size-mib", 1024) << 20;
            string output = ProbeOptions.OptionString(args, "--out") ?? Path.Combine(RepositoryPaths.Root, "benchmarks", "results", "stream-1gib.md");
            long defaultCap = new SlabMemoryAllocatorOptions().MaxIdleBytes;

            var total = Stopwatch.StartNew();
            string file = Path.Combine(Path.GetTempPath(), $"arrowlz4fast-stream-{Environment.ProcessId}.arrows");
            try
            {
                (long bytes, int batches, long largest, long fileBytes) = WriteStream(file, targetBytes);
                Console.WriteLine($"stream: {batches} batches, {Mib(bytes)} MiB of buffers (largest batch {Mib(largest)} MiB), {Mib(fileBytes)} MiB LZ4-compressed; written in {total.Elapsed.TotalSeconds:0.0} s");

                var rows = new List<string[]>();
                foreach ((string codec, string allocator, long cap) in Runs)
                {
                    long effectiveCap = cap < 0 ? defaultCap : cap;
                    Dictionary<string, string> r = RunChild(file, codec, allocator, cap);
                    bool slab = allocator == Allocators.Slab;
                    double seconds = double.Parse(r["seconds"], CultureInfo.InvariantCulture);
                    long peak = long.Parse(r["peakRss"], CultureInfo.InvariantCulture);
                    long before = long.Parse(r["baseRss"], CultureInfo.InvariantCulture);
                    long bound = 3 * largest + (slab ? effectiveCap : 0);
                    rows.Add(new[]
                    {
                        codec,
                        allocator + (slab ? $" (cap {Mib(effectiveCap)} MiB)" : ""),
                        seconds.ToString("0.00", CultureInfo.InvariantCulture),
                        (bytes / seconds / 1e9).ToString("0.00", CultureInfo.InvariantCulture),
                        Mib(peak),
                        Mib(before),
                        Mib(peak - before),
                        Mib(bound) + (peak - before <= bound ? " (within)" : " (exceeded)"),
                        r["gen0"], r["gen1"], r["gen2"],
                        slab ? Mib(long.Parse(r["peakRetained"], CultureInfo.InvariantCulture)) : "",
                        slab ? Mib(long.Parse(r["retainedAfter"], CultureInfo.InvariantCulture)) : "",
                        slab ? r["msToCap"] : "",
                        slab ? r["msToZero"] : "",
                    });
                    Console.WriteLine(string.Join(" | ", rows[^1]));
                }

                string[] header =
                {
                    "codec", "allocator", "read s", "GB/s", "peak RSS MiB", "RSS before MiB", "growth MiB", "3 x largest batch + cap MiB",
                    "gen0", "gen1", "gen2", "peak retained MiB", "retained after MiB", "ms to cap", $"ms to 0 (idle trim {IdleTrimDelay.TotalSeconds:0} s)",
                };
                var md = new StringBuilder();
                md.AppendLine("# Streaming read of 1 GiB of batches");
                md.AppendLine();
                md.AppendLine($"`dotnet run -c Release --project benchmarks/ArrowLz4Fast.Probes -- {ParentSwitch}` on {DateTime.UtcNow:yyyy-MM-dd}, .NET {Environment.Version}, {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}; default glibc malloc settings.");
                md.AppendLine();
                md.AppendLine($"The order-lines table (see `Harness/SyntheticTable.cs`) in {batches} batches of 64Ki-256Ki rows ({RowCounts.Length} distinct batches repeated), {Mib(bytes)} MiB of Arrow buffers, the largest batch {Mib(largest)} MiB; written once by ArrowStreamWriter with ArrowLz4Fast ({Mib(fileBytes)} MiB), then read by ArrowStreamReader from the file through a 1-16 KiB chunked stream, every batch disposed, each row in a process of its own.");
                md.AppendLine("Peak RSS is the process's VmHWM (runtime included); growth = peak RSS - RSS before the read, compared with 3 x the largest batch's buffers + the retention cap (0 for allocators without one); gen0/1/2 are collections during the read (every collection counts in each generation it reached).");
                md.AppendLine($"For the package's allocator (idle trim delay set to {IdleTrimDelay.TotalSeconds:0} s for the run): peak retained = most native memory held during the read; retained after = right after the last batch is disposed; ms to cap / to 0 = until retained memory is at most the cap / zero.");
                md.AppendLine();
                md.AppendLine("| " + string.Join(" | ", header) + " |");
                md.AppendLine("|" + string.Join("|", header.Select((_, i) => i < 2 ? "---" : "---:")) + "|");
                foreach (string[] row in rows)
                    md.AppendLine("| " + string.Join(" | ", row) + " |");
                Console.WriteLine();
                Console.WriteLine(md.ToString());
                Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(output))!);
                File.WriteAllText(output, md.ToString());
                Console.WriteLine($"written to {output}; took {total.Elapsed.TotalSeconds:0} s");
                return 0;
            }
            finally
            {
                File.Delete(file);
            }
        }

        private static (long Bytes, int Batches, long Largest, long FileBytes) WriteStream(string file, long targetBytes)
        {
            IReadOnlyList<RecordBatch> distinct = SyntheticTable.BatchesOfRows(RowCounts);
            long[] sizes = distinct.Select(ArrowBufferBytes.Of).ToArray();
            var allocator = new SlabMemoryAllocator();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() };
            long bytes = 0;
            int batches = 0;
            using (var stream = new FileStream(file, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20))
            using (var writer = new ArrowStreamWriter(stream, SyntheticTable.Schema, leaveOpen: false, options, allocator))
            {
                for (; bytes < targetBytes; batches++)
                {
                    writer.WriteRecordBatch(distinct[batches % distinct.Count]);
                    bytes += sizes[batches % distinct.Count];
                }
                writer.WriteEnd();
            }
            foreach (RecordBatch batch in distinct)
                batch.Dispose();
            return (bytes, batches, sizes.Max(), new FileInfo(file).Length);
        }

        private static Dictionary<string, string> RunChild(string file, string codec, string allocator, long cap)
        {
            string self = Environment.ProcessPath!;
            var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
            if (Path.GetFileNameWithoutExtension(self) == "dotnet")
                start.ArgumentList.Add(typeof(LargeStreamRun).Assembly.Location);
            foreach (string arg in new[] { ChildSwitch, file, codec, allocator, cap.ToString(CultureInfo.InvariantCulture) })
                start.ArgumentList.Add(arg);
            using Process process = Process.Start(start)!;
            string result = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            if (process.ExitCode != 0)
                throw new InvalidOperationException($"{codec} + {allocator}: the read failed ({process.ExitCode}): {result}");
            return result.Trim().Split(';').Select(kv => kv.Split('=')).ToDictionary(kv => kv[0], kv => kv[1]);
        }

        /// <summary>One read in this process: prints key=value pairs separated by ';'.</summary>
        public static int Child(string[] args)
        {
            string file = args[1], codec = args[2], allocatorName = args[3];
            long cap = long.Parse(args[4], CultureInfo.InvariantCulture);
            SlabMemoryAllocator? slab = allocatorName == Allocators.Slab
                ? new SlabMemoryAllocator(cap < 0
                    ? new SlabMemoryAllocatorOptions { IdleTrimDelay = IdleTrimDelay }
                    : new SlabMemoryAllocatorOptions { IdleTrimDelay = IdleTrimDelay, MaxIdleBytes = cap })
                : null;
            MemoryAllocator allocator = slab ?? Allocators.Create(allocatorName);
            ICompressionCodecFactory factory = codec == "official" ? new CompressionCodecFactory() : new Lz4FastCodecFactory();

            long baseRss = ProcStatus("VmRSS");
            int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
            long peakRetained = 0, rows = 0;
            var watch = Stopwatch.StartNew();
            using (var reader = new ArrowStreamReader(new ChunkingStream(new FileStream(file, FileMode.Open, FileAccess.Read)), allocator, factory, leaveOpen: false))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    rows += batch.Length;
                    if (slab is not null)
                        peakRetained = Math.Max(peakRetained, slab.BytesRetained);
                    batch.Dispose();
                }
            }
            watch.Stop();
            var result = new StringBuilder();
            result.Append(CultureInfo.InvariantCulture, $"seconds={watch.Elapsed.TotalSeconds.ToString("R", CultureInfo.InvariantCulture)};rows={rows}");
            result.Append(CultureInfo.InvariantCulture, $";gen0={GC.CollectionCount(0) - gen0};gen1={GC.CollectionCount(1) - gen1};gen2={GC.CollectionCount(2) - gen2}");
            result.Append(CultureInfo.InvariantCulture, $";baseRss={baseRss};peakRss={ProcStatus("VmHWM")}");
            if (slab is not null)
            {
                long after = slab.BytesRetained;
                var settle = Stopwatch.StartNew();
                long toCap = WaitMs(() => slab.BytesRetained <= slab.MaxIdleBytes, settle);
                long toZero = WaitMs(() => slab.BytesRetained == 0, settle);
                result.Append(CultureInfo.InvariantCulture, $";peakRetained={peakRetained};retainedAfter={after};msToCap={toCap};msToZero={toZero}");
            }
            Console.WriteLine(result.ToString());
            return 0;
        }

        private static long WaitMs(Func<bool> condition, Stopwatch since)
        {
            while (!condition() && since.Elapsed < TimeSpan.FromSeconds(20))
                Thread.Sleep(1);
            return condition() ? since.ElapsedMilliseconds : -1;
        }

        /// <summary>A size from /proc/self/status in bytes (0 where there is no /proc).</summary>
        private static long ProcStatus(string key)
        {
            if (!File.Exists("/proc/self/status"))
                return 0;
            foreach (string line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith(key + ":", StringComparison.Ordinal))
                    return long.Parse(line.Substring(key.Length + 1).Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
            }
            return 0;
        }

        private static string Mib(long bytes) => (bytes / 1048576.0).ToString("0.0", CultureInfo.InvariantCulture);

    }
}
