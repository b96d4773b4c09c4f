using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using ArrowLz4Fast.Fuzz;

// Differential fuzzer: mutants of real LZ4 frames, decoded by native liblz4 and by ArrowLz4Fast. See fuzz/README.md.
var options = FuzzOptions.Parse(args);
Oracle.ForceParallel = options.Parallel;
Oracle.Stream = options.Stream;
string root = FuzzOptions.RepositoryRoot();
if (options.IpcFile)
    return IpcFileFuzz.Run(options, root);
if (options.Ipc)
    return IpcFuzz.Run(options, root);
if (options.IpcWrite)
    return IpcWriteFuzz.Run(options, root);
if (options.Flight)
    return FlightFuzz.Run(options, root);

try
{
    Console.WriteLine($"fuzz: liblz4 {Liblz4.LibraryVersion()} (liblz4.so.1), seed {options.Seed}, mutants {options.Start}..{options.Start + options.Count - 1}, {options.Threads} thread(s){(options.Parallel ? ", parallel decode forced on" : "")}{(options.Stream ? ", through the decoding stream" : "")}");
}
catch (DllNotFoundException)
{
    Console.Error.WriteLine("fuzz: liblz4.so.1 not found; install it with `apt-get install -y liblz4-1` (the lz4 CLI's library)");
    return 2;
}

List<byte[]> seeds;
using (var loader = new Liblz4())
    seeds = Seeds.Load(root, loader, Console.WriteLine);
if (options.Parallel)
{
    // Only seeds that parallel decode takes (an independent frame of two or more blocks), so that most mutants
    // exercise it; mutant numbers therefore differ from a run without --parallel (replay with --parallel too).
    seeds = seeds.Where(Oracle.HasIndependentBlocks).ToList();
}
Console.WriteLine($"fuzz: {seeds.Count} seed frames, {seeds.Sum(s => (long)s.Length) / 1024} KiB");
var mutator = new Mutator(seeds);

if (options.Index is long single)
    return Replay.One(mutator, options.Seed, single);
if (options.Encode)
    return EncodeCheck.Run(options, mutator);

var oracles = new Oracle[options.Threads];
var current = new long[options.Threads];
var findings = new ConcurrentQueue<(long Index, string Recipe, string Class, string Detail, byte[] Data)>();
long accepts = 0, rejects = 0, overCap = 0, done = 0;
var documented = new ConcurrentDictionary<string, long>();
var clock = Stopwatch.StartNew();

var watchdog = new Thread(() =>
{
    while (true)
    {
        Thread.Sleep(100);
        long now = Stopwatch.GetTimestamp();
        for (int w = 0; w < oracles.Length; w++)
        {
            long started = oracles[w] is Oracle o ? Volatile.Read(ref o.CallStarted) : 0;
            if (started != 0 && now - started > Stopwatch.Frequency)
            {
                Console.Error.WriteLine($"fuzz: HANG: a call has run for over 1 s on mutant --seed {options.Seed} --index {Volatile.Read(ref current[w])}");
                Environment.Exit(3);
            }
        }
    }
}) { IsBackground = true };

var workers = Enumerable.Range(0, options.Threads).Select(w => new Thread(() =>
{
    var oracle = new Oracle();
    oracles[w] = oracle;
    for (long i = options.Start + w; i < options.Start + options.Count; i += options.Threads)
    {
        Volatile.Write(ref current[w], i);
        (byte[] data, string recipe) = Replay.Mutant(mutator, oracle, options.Seed, i);
        Verdict verdict = oracle.Check(data, Mutator.RandomFor(options.Seed, i));
        if (verdict.Reference.OverCap) Interlocked.Increment(ref overCap);
        else if (verdict.Reference.Accepts) Interlocked.Increment(ref accepts);
        else Interlocked.Increment(ref rejects);
        foreach (string d in verdict.DocumentedCases)
            documented.AddOrUpdate(d, 1, (_, n) => n + 1);
        foreach ((string cls, string detail) in verdict.Findings.GroupBy(f => f.Class).Select(g => g.First()))
            findings.Enqueue((i, recipe, cls, detail, data));
        long n = Interlocked.Increment(ref done);
        if (n % 100_000 == 0)
            Console.WriteLine($"fuzz: {n:N0} mutants, {n / clock.Elapsed.TotalSeconds:N0}/s, {findings.Count} finding(s)");
    }
})).ToList();

watchdog.Start();
workers.ForEach(t => t.Start());
workers.ForEach(t => t.Join());
clock.Stop();

double slowest = oracles.Max(o => o.SlowestCallTicks) * 1000.0 / Stopwatch.Frequency;
Console.WriteLine($"fuzz: {done:N0} mutants in {clock.Elapsed.TotalSeconds:N1} s ({done / clock.Elapsed.TotalSeconds:N0}/s); liblz4 accepted {accepts:N0}, rejected {rejects:N0}, {overCap:N0} past the output cap; slowest call {slowest:N1} ms");
if (options.Parallel)
    Console.WriteLine($"fuzz: {Oracle.ParallelEligible:N0} mutants had an independent frame of two or more blocks (decoded in parallel)");
foreach ((string name, long n) in documented.OrderBy(p => p.Key))
    Console.WriteLine($"fuzz: documented disagreement '{name}' hit by {n:N0} mutants (docs/correctness.md)");

if (findings.IsEmpty)
{
    Console.WriteLine($"fuzz: clean: 0 findings in {done:N0} mutants (seed {options.Seed})");
    return 0;
}

Directory.CreateDirectory(options.OutDir);
using var minimizer = new Oracle();
foreach (var group in findings.GroupBy(f => f.Class).OrderBy(g => g.Key))
{
    Console.WriteLine($"fuzz: FINDING {group.Key}: {group.Count():N0} mutant(s)");
    foreach (var f in group.OrderBy(f => f.Index).Take(options.Examples))
    {
        byte[] small = options.Minimize ? Minimizer.Minimize(f.Data, d => minimizer.Check(d, Mutator.RandomFor(options.Seed, f.Index)).Has(f.Class)) : f.Data;
        string name = $"{f.Class}-{options.Seed}-{f.Index}";
        File.WriteAllBytes(Path.Combine(options.OutDir, name + ".lz4"), small);
        Verdict again = minimizer.Check(small, Mutator.RandomFor(options.Seed, f.Index));
        File.WriteAllText(Path.Combine(options.OutDir, name + ".json"), JsonSerializer.Serialize(new
        {
            @class = f.Class,
            seed = options.Seed,
            index = f.Index,
            recipe = f.Recipe,
            liblz4 = again.Reference.ToString(),
            project = again.Findings.FirstOrDefault(x => x.Class == f.Class).Detail ?? f.Detail,
            original_length = f.Data.Length,
            minimized_hex = Convert.ToHexString(small),
        }, new JsonSerializerOptions { WriteIndented = true }));
        Console.WriteLine($"  --seed {options.Seed} --index {f.Index} [{f.Recipe}] {f.Detail}");
        Console.WriteLine($"    minimized to {small.Length} bytes: {Path.Combine(options.OutDir, name + ".lz4")}");
    }
}
return 1;
