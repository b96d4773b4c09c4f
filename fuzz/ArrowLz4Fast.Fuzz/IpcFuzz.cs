using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// --ipc: mutants of the corpus IPC streams' metadata and bodies, read through IpcDecompressingStream (drained into
    /// sentinel-fenced destinations, then by Arrow's reader) and by Arrow's reader with the package's codec. Only
    /// InvalidDataException (with its Lz4FrameException) and NotSupportedException may come out of the wrapper, no byte
    /// may change outside a destination, and when both readers succeed their batches must be equal.
    /// </summary>
    internal static class IpcFuzz
    {
        private const int Guard = 256;

        // The budget of one mutant through the wrapper (drained, then read by Arrow over it): hostile metadata must cost
        // time and memory bounded by the input, not by the numbers in it (issue #34: a schema mutant stalled Arrow's
        // reader for seconds and grew it to 10 GB). Time is wall clock on a shared machine: a mutant over it is read
        // twice more and is a finding only if every read is over (seed 104 at load 20: two 3.4 MB drains with 1-byte
        // reads took 2 s once, 1.7-1.9 s replayed). Memory is what the checking thread allocates, the largest read
        // of the corpus allocating about 16 MB of it.
        private static readonly TimeSpan TimeBudget = TimeSpan.FromSeconds(5);
        private const int TimeRetries = 2;
        private const long AllocationBudget = 256L << 20;

        public static int Run(FuzzOptions options, string root)
        {
            var seeds = new List<(string Name, byte[] Bytes, List<IpcMutator.Message> Messages, string[] Fields)>();
            foreach (string dir in new[] { Path.Combine(root, "corpus", "ipc"), Path.Combine(CorpusLocator.SharedDirectory, "ipc") })
            {
                if (!Directory.Exists(dir))
                    continue;
                foreach (string file in Directory.EnumerateFiles(dir, "*.arrow*", SearchOption.AllDirectories).Where(f => !f.EndsWith(".json", StringComparison.Ordinal)).OrderBy(f => f, StringComparer.Ordinal))
                {
                    byte[] bytes = File.ReadAllBytes(file);
                    if (bytes.Length > 4 << 20 || seeds.Any(s => s.Name == Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file)))
                        continue; // the large shared streams make slow mutants; their shapes are in the small ones
                    var messages = IpcMutator.Messages(bytes);
                    if (messages.Any(m => m.Lz4))
                        seeds.Add((Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file), bytes, messages, options.Project ? FieldNames(bytes) : System.Array.Empty<string>()));
                }
            }
            Console.WriteLine($"fuzz --ipc{(options.Project ? " --project" : "")}: {seeds.Count} seed streams, seed {options.Seed}, mutants {options.Start}..{options.Start + options.Count - 1}, {options.Threads} thread(s)");

            long first = options.Index ?? options.Start;
            long count = options.Index.HasValue ? 1 : options.Count;
            var tally = new FuzzTally(TimeBudget, AllocationBudget, " through the wrapper");
            int schemaMutants = 0;
            Parallel.For(0, count, new ParallelOptions { MaxDegreeOfParallelism = options.Threads }, k =>
            {
                long index = first + k;
                var random = new Random(unchecked((int)(options.Seed * 2654435761UL) ^ (int)index ^ (int)(index >> 32)));
                var seed = seeds[random.Next(seeds.Count)];
                // A quarter of the mutants change the Schema message only, where Arrow's own reader is weakest.
                bool schema = random.Next(4) == 0 || options.SchemaOnly;
                byte[] mutant = schema
                    ? IpcMutator.MutateSchema(seed.Bytes, seed.Messages, random, out string what)
                    : IpcMutator.Mutate(seed.Bytes, seed.Messages, random, out what);
                if (schema)
                    Interlocked.Increment(ref schemaMutants);
                int degree = 1 + random.Next(3);
                // Drawn from a generator of its own, so the mutants stay those of --ipc with the same seed.
                IpcProjection? projection = null;
                if (options.Project)
                {
                    projection = RandomProjection(seed.Fields, new Random(unchecked((int)index * 31 + 7)), out string projected);
                    what += $", projection {projected}";
                }
                string? problem = Check(mutant, degree, random, schema, projection, out bool wasRejected, out TimeSpan took, out long allocated);
                for (int retry = 0; problem is null && took > TimeBudget && retry < TimeRetries; retry++)
                    problem = Check(mutant, degree, new Random((int)index + retry), schema: false, projection, out _, out took, out allocated);
                if (schema)
                {
                    // Every path is read and counted, also after the wrapper broke the contract.
                    string? other = SchemaPaths.Check(mutant, seed.Messages);
                    problem ??= other;
                }
                tally.Record(problem, wasRejected, took, allocated, options, $"ipc-{options.Seed}-{index}.arrows", mutant, $"  --ipc --seed {options.Seed} --index {index} [{seed.Name}, {what}, degree {degree}]");
            });
            tally.PrintFindings(options);
            Console.WriteLine($"fuzz --ipc: {count} mutants ({schemaMutants} of the schema only): {tally.Rejected} rejected, {tally.Accepted} read, {tally.Failures} failure(s)");
            if (schemaMutants > 0)
            {
                Console.WriteLine("fuzz --ipc: how the schema-only mutants ended, per read path:");
                foreach (string line in SchemaPaths.Report())
                    Console.WriteLine(line);
            }
            Console.WriteLine($"fuzz --ipc: through the wrapper, at most {tally.MaxTime.TotalMilliseconds:F0} ms and {tally.MaxAllocated:N0} bytes allocated for one mutant (budget {TimeBudget.TotalMilliseconds:F0} ms, {AllocationBudget:N0} bytes)");
            return tally.Failures == 0 ? 0 : 1;
        }

        internal static void InterlockedMax(ref long location, long value)
        {
            long seen = Interlocked.Read(ref location);
            while (value > seen)
            {
                long was = Interlocked.CompareExchange(ref location, value, seen);
                if (was == seen)
                    return;
                seen = was;
            }
        }

        /// <summary>
        /// One mutant; <paramref name="took"/> and <paramref name="allocated"/> are the wrapper's two reads, which the
        /// budget covers. A <paramref name="schema"/>-only mutant must keep the error contract through Arrow's reader over
        /// the wrapper too (the wrapper verifies what a schema says), and its outcomes are counted.
        /// </summary>
        private static string? Check(byte[] bytes, int degree, Random random, bool schema, IpcProjection? projection, out bool rejected, out TimeSpan took, out long allocated)
        {
            rejected = false;
            var clock = System.Diagnostics.Stopwatch.StartNew();
            long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
            took = TimeSpan.Zero;
            allocated = 0;
            var options = new Lz4FastOptions { MaxDegreeOfParallelism = degree, MinimumParallelLength = 1, Projection = projection };
            int[] lengths = { 1, 7, 64, 4096, 1 << 20, 8 << 20 };
            var guarded = new Dictionary<int, byte[]>();
            try
            {
                // The drain runs the verifying read too, so every mutant goes through its offsets check (a refusal is
                // an InvalidDataException like any other); the read compared with the codec path below does not verify.
                using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false),
                    new Lz4FastOptions { MaxDegreeOfParallelism = degree, MinimumParallelLength = 1, VerifyOffsets = true, Projection = projection });
                while (true)
                {
                    int length = lengths[random.Next(lengths.Length)];
                    if (!guarded.TryGetValue(length, out byte[]? array))
                    {
                        guarded[length] = array = new byte[length + (2 * Guard)];
                        array.AsSpan().Fill(0xA5);
                    }
                    int n = stream.Read(array.AsSpan(Guard, length));
                    if (array.AsSpan(0, Guard).IndexOfAnyExcept((byte)0xA5) >= 0 || array.AsSpan(Guard + length).IndexOfAnyExcept((byte)0xA5) >= 0)
                        return "a byte outside the destination changed";
                    if (n == 0)
                        break;
                }
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException)
            {
                rejected = true;
                if (schema)
                    SchemaPaths.Record("wrapper", e);
            }
            catch (NotSupportedException e)
            {
                rejected = true;
                if (schema)
                    SchemaPaths.Record("wrapper", e);
            }
            catch (Exception e)
            {
                if (schema)
                    SchemaPaths.Record("wrapper", e);
                return $"the wrapper threw {e.GetType().Name}: {e.Message} ({SchemaPaths.Where(e)})";
            }
            if (schema && !rejected)
                SchemaPaths.Record("wrapper", null);

            List<RecordBatch>? ours = null, reference = null;
            Exception? ourError = null, referenceError = null;
            try
            {
                // Half the mutants are read from a file: on .NET 8 at positions, each thread reading the buffers it
                // decodes; half of those asynchronously (positional reads defer there too).
                int from = random.Next(4);
                Stream input = from < 2 ? new MemoryStream(bytes, writable: false) : TemporaryFile(bytes);
                ours = ReadAll(new IpcDecompressingStream(input, options), file: false, asynchronous: from == 3);
            }
            catch (Exception e)
            {
                ourError = e;
            }
            took = clock.Elapsed;
            allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
            string? schemaProblem = schema ? SchemaPaths.Record("Arrow over the wrapper", ourError) : null;
            // The codec path is read only when its result is compared: Arrow's reader over hostile metadata rents arrays
            // of the declared sizes from the shared pool, which long runs otherwise accumulate (fuzz/README.md).
            bool refusedAsAllowed = ourError is InvalidDataException || ourError is NotSupportedException;
            if (!refusedAsAllowed)
            {
                try
                {
                    reference = ReadAll(new MemoryStream(bytes, writable: false), bytes.AsSpan().StartsWith("ARROW1"u8));
                }
                catch (Exception e)
                {
                    referenceError = e;
                }
            }
            try
            {
                if (ours is not null && reference is not null)
                    return projection is null ? Compare(reference, ours) : CompareProjected(reference, ours, projection);
                if (schemaProblem is not null)
                    return schemaProblem;
            }
            finally
            {
                // The batches own allocator memory: disposed here, it is reused at once instead of waiting for finalizers.
                foreach (RecordBatch batch in (reference ?? new List<RecordBatch>()).Concat(ours ?? new List<RecordBatch>()))
                    batch.Dispose();
            }
            if (ourError is not null && !refusedAsAllowed && referenceError is null)
                return $"Arrow over the wrapper threw {ourError.GetType().Name} ({ourError.Message}) but the codec path read the input";
            return null;
        }

        /// <summary>A file holding <paramref name="bytes"/>, open for reading at its start and deleted when closed.</summary>
        private static FileStream TemporaryFile(byte[] bytes)
        {
            var file = new FileStream(Path.Combine(Path.GetTempPath(), "ipc-fuzz-" + Guid.NewGuid().ToString("N")), FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.DeleteOnClose);
            file.Write(bytes, 0, bytes.Length);
            file.Position = 0;
            return file;
        }

        private static List<RecordBatch> ReadAll(Stream stream, bool file, bool asynchronous = false)
        {
            var factory = new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
            using ArrowStreamReader reader = file ? new ArrowFileReader(stream, SlabMemoryAllocator.Shared, factory, leaveOpen: false) : new ArrowStreamReader(stream, SlabMemoryAllocator.Shared, factory, leaveOpen: false);
            var batches = new List<RecordBatch>();
            try
            {
                while ((asynchronous ? reader.ReadNextRecordBatchAsync().AsTask().GetAwaiter().GetResult() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                    batches.Add(batch);
            }
            catch
            {
                foreach (RecordBatch batch in batches)
                    batch.Dispose();
                throw;
            }
            return batches;
        }

        /// <summary>The seed's top-level field names, read through the wrapper; none when it cannot be read.</summary>
        internal static string[] FieldNames(byte[] bytes)
        {
            try
            {
                using var reader = new ArrowStreamReader(new IpcDecompressingStream(bytes.AsMemory()), SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory()), leaveOpen: false);
                return reader.Schema.FieldsList.Select(f => f.Name).ToArray();
            }
            catch (Exception)
            {
                return System.Array.Empty<string>();
            }
        }

        /// <summary>
        /// One to three of the seed's fields, by index (in any order) or, one time in four, by name; one time in sixteen
        /// an index past the seed's fields, and one in sixteen no field at all.
        /// </summary>
        internal static IpcProjection RandomProjection(string[] fields, Random random, out string what)
        {
            int n = Math.Max(1, fields.Length);
            int roll = random.Next(16);
            if (roll == 0)
            {
                what = $"[{n + random.Next(3)}]";
                return IpcProjection.ByIndex(n + random.Next(3));
            }
            if (roll == 1)
            {
                what = "[]";
                return IpcProjection.ByIndex();
            }
            int[] indices = Enumerable.Range(0, n).OrderBy(_ => random.Next()).Take(1 + random.Next(Math.Min(3, n))).ToArray();
            if (fields.Length > 0 && random.Next(4) == 0 && indices.Select(i => fields[i]).Distinct().Count() == indices.Length)
            {
                what = $"names [{string.Join(",", indices.Select(i => fields[i]))}]";
                return IpcProjection.ByName(indices.Select(i => fields[i]));
            }
            what = $"[{string.Join(",", indices)}]";
            return IpcProjection.ByIndex(indices);
        }

        /// <summary>The projected batches against the selected columns of the codec path's, in schema order.</summary>
        private static string? CompareProjected(List<RecordBatch> expected, List<RecordBatch> actual, IpcProjection projection)
        {
            if (expected.Count != actual.Count)
                return $"{actual.Count} batches, the codec path read {expected.Count}";
            for (int b = 0; b < expected.Count; b++)
            {
                Schema schema = expected[b].Schema;
                List<int> selected = projection.Indices is { } indices
                    ? indices.OrderBy(i => i).ToList()
                    : projection.Names!.Select(name => schema.FieldsList.ToList().FindIndex(f => f.Name == name)).OrderBy(i => i).ToList();
                if (selected.Any(i => i < 0 || i >= schema.FieldsList.Count))
                    return $"batch {b}: the projection read fields the codec path's schema does not have";
                if (expected[b].Length != actual[b].Length || actual[b].ColumnCount != selected.Count)
                    return $"batch {b} differs in shape: {expected[b].Length} rows, {selected.Count} selected columns against {actual[b].Length}, {actual[b].ColumnCount}";
                for (int c = 0; c < selected.Count; c++)
                {
                    if (actual[b].Schema.GetFieldByIndex(c).Name != schema.GetFieldByIndex(selected[c]).Name)
                        return $"batch {b} column {c}: named {actual[b].Schema.GetFieldByIndex(c).Name}, the codec path's field {selected[c]} is {schema.GetFieldByIndex(selected[c]).Name}";
                    string? difference = Compare(expected[b].Column(selected[c]).Data, actual[b].Column(c).Data, $"batch {b} column {c} (field {selected[c]})");
                    if (difference is not null)
                        return difference;
                }
            }
            return null;
        }

        internal static string? Compare(List<RecordBatch> expected, List<RecordBatch> actual)
        {
            if (expected.Count != actual.Count)
                return $"{actual.Count} batches, the codec path read {expected.Count}";
            for (int b = 0; b < expected.Count; b++)
            {
                if (expected[b].Length != actual[b].Length || expected[b].ColumnCount != actual[b].ColumnCount)
                    return $"batch {b} differs in shape: {expected[b].Length} rows, {expected[b].ColumnCount} columns against {actual[b].Length}, {actual[b].ColumnCount}";
                for (int c = 0; c < expected[b].ColumnCount; c++)
                {
                    string? difference = Compare(expected[b].Column(c).Data, actual[b].Column(c).Data, $"batch {b} column {c}");
                    if (difference is not null)
                        return difference;
                }
            }
            return null;
        }

        private static string? Compare(ArrayData expected, ArrayData actual, string where)
        {
            if (expected.DataType.TypeId != actual.DataType.TypeId || expected.Length != actual.Length || expected.NullCount != actual.NullCount || expected.Offset != actual.Offset || expected.Buffers.Length != actual.Buffers.Length)
                return $"{where}: header differs";
            for (int i = 0; i < expected.Buffers.Length; i++)
            {
                if (!expected.Buffers[i].Span.SequenceEqual(actual.Buffers[i].Span))
                    return $"{where}: buffer {i} differs";
            }
            int children = expected.Children?.Length ?? 0;
            if (children != (actual.Children?.Length ?? 0))
                return $"{where}: child count differs";
            for (int i = 0; i < children; i++)
            {
                string? difference = Compare(expected.Children![i], actual.Children![i], $"{where} child {i}");
                if (difference is not null)
                    return difference;
            }
            if ((expected.Dictionary is null) != (actual.Dictionary is null))
                return $"{where}: dictionary presence differs";
            return expected.Dictionary is null ? null : Compare(expected.Dictionary, actual.Dictionary!, $"{where} dictionary");
        }
    }
}
