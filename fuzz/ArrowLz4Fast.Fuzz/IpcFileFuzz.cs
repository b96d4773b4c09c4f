using System;
using System.Buffers.Binary;
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
    /// --ipc-file: random access (Lz4ArrowFileReader) to mutants of LZ4 IPC files written from the corpus streams (and
    /// of a ZSTD one, read with the official codec factory, and one with a delta dictionary): the
    /// footer (bytes, a block's offset, metaDataLength or bodyLength, a vector's count), a message's metadata or body
    /// (the --ipc mutations), or the file cut short; each opened from memory or a temporary file with a random
    /// projection and read at random batch indices, synchronously and asynchronously, one mutant in four then again on
    /// two threads at once, each read giving what it gave alone. Only InvalidDataException (with its Lz4FrameException)
    /// and NotSupportedException may come out, worded as counting in the file, within the --ipc budgets.
    /// </summary>
    internal static partial class IpcFileFuzz
    {
        private static readonly TimeSpan TimeBudget = TimeSpan.FromSeconds(5);
        private const int TimeRetries = 2;
        private const long AllocationBudget = 256L << 20;
        private static readonly long[] Interesting = { 0, 1, -1, 7, 8, 9, 24, 65536, int.MaxValue, int.MinValue, uint.MaxValue, long.MaxValue, long.MinValue, 1L << 40 };

        public static int Run(FuzzOptions options, string root)
        {
            var seeds = new List<(string Name, byte[] Bytes, List<IpcMutator.Message> Messages, string[] Fields, long Footer)>();
            string dir = Path.Combine(root, "corpus", "ipc");
            void Add(string name, byte[] bytes)
            {
                long footer = bytes.Length - 10 - BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(bytes.Length - 10));
                seeds.Add((name, bytes, IpcMutator.Messages(bytes), IpcFuzz.FieldNames(bytes), footer));
            }
            foreach (string file in Directory.EnumerateFiles(dir, "*.arrows", SearchOption.AllDirectories).OrderBy(f => f, StringComparer.Ordinal))
            {
                if (new FileInfo(file).Length > 1 << 20)
                    continue; // the large streams make slow mutants; their shapes are in the small ones
                byte[]? bytes = FileOf(file, CompressionCodecType.Lz4Frame);
                if (bytes is not null)
                    Add(Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file), bytes);
            }
            // ZSTD bodies (batches and a dictionary) decompressed by the codec factory, and a delta dictionary.
            Add("pyarrow/nested_dict.arrows as ZSTD", FileOf(Path.Combine(dir, "pyarrow", "nested_dict.arrows"), CompressionCodecType.Zstd)!);
            Add("delta dictionary file", DeltaDictionaryFile.Build(new Lz4FastCodecFactory()));
            Console.WriteLine($"fuzz --ipc-file: {seeds.Count} seed files, seed {options.Seed}, mutants {options.Start}..{options.Start + options.Count - 1}, {options.Threads} thread(s)");

            long first = options.Index ?? options.Start;
            long count = options.Index.HasValue ? 1 : options.Count;
            var tally = new FuzzTally(TimeBudget, AllocationBudget, "");
            Parallel.For(0, count, new ParallelOptions { MaxDegreeOfParallelism = options.Threads }, k =>
            {
                long index = first + k;
                var random = new Random(unchecked((int)(options.Seed * 2654435761UL) ^ (int)index ^ (int)(index >> 32) ^ 0x5EED));
                var seed = seeds[random.Next(seeds.Count)];
                byte[] mutant = Mutate(seed.Bytes, seed.Messages, seed.Footer, random, out string what);
                IpcProjection? projection = random.Next(4) == 0 ? null : IpcFuzz.RandomProjection(seed.Fields, random, out _);
                what += projection is null ? ", every field" : $", projection {ProjectionText(projection)}";
                int degree = 1 + random.Next(3);
                int readSeed = random.Next();
                string? problem = Check(mutant, projection, degree, new Random(readSeed), out bool wasRejected, out TimeSpan took, out long allocated);
                for (int retry = 0; problem is null && took > TimeBudget && retry < TimeRetries; retry++)
                    problem = Check(mutant, projection, degree, new Random(readSeed), out _, out took, out allocated);
                tally.Record(problem, wasRejected, took, allocated, options, $"ipc-file-{options.Seed}-{index}.arrow", mutant, $"  --ipc-file --seed {options.Seed} --index {index} [{seed.Name}, {what}, degree {degree}]");
            });
            tally.PrintFindings(options);
            Console.WriteLine($"fuzz --ipc-file: {count} mutants: {tally.Rejected} rejected, {tally.Accepted} read, {tally.Failures} failure(s)");
            Console.WriteLine($"fuzz --ipc-file: at most {tally.MaxTime.TotalMilliseconds:F0} ms and {tally.MaxAllocated:N0} bytes allocated for one mutant (budget {TimeBudget.TotalMilliseconds:F0} ms, {AllocationBudget:N0} bytes)");
            return tally.Failures == 0 ? 0 : 1;
        }

        /// <summary>The corpus stream's batches as an IPC file compressed with <paramref name="codec"/>, as ArrowFileWriter writes it with the official codec; null when there is none to write.</summary>
        private static byte[]? FileOf(string stream, CompressionCodecType codec)
        {
            var factory = new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
            var batches = new List<RecordBatch>();
            try
            {
                using (var reader = new ArrowStreamReader(File.OpenRead(stream), SlabMemoryAllocator.Shared, factory, leaveOpen: false))
                {
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                        batches.Add(batch);
                }
                if (batches.Count == 0)
                    return null;
                using var output = new MemoryStream();
                var ipc = new IpcOptions { CompressionCodec = codec, CompressionCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory() };
                using (var writer = new ArrowFileWriter(output, batches[0].Schema, leaveOpen: true, ipc))
                {
                    foreach (RecordBatch batch in batches)
                        writer.WriteRecordBatch(batch);
                    writer.WriteEnd();
                }
                return output.ToArray();
            }
            finally
            {
                foreach (RecordBatch batch in batches)
                    batch.Dispose();
            }
        }

        /// <summary>One mutation: of the footer (bytes, a block field, a count), of a message (as --ipc), or a cut.</summary>
        private static byte[] Mutate(byte[] original, List<IpcMutator.Message> messages, long footer, Random random, out string what)
        {
            int roll = random.Next(8);
            if (roll < 2)
                return IpcMutator.Mutate(original, messages, random, out what);
            if (roll == 2)
            {
                int cut = random.Next(original.Length);
                what = $"cut to {cut} bytes";
                return original.AsSpan(0, cut).ToArray();
            }
            byte[] bytes = (byte[])original.Clone();
            int footerLength = (int)(original.Length - 10 - footer);
            if (roll < 5)
            {
                // Bytes of the footer, its length or the magic after it.
                int edits = 1 + random.Next(3);
                what = "footer bytes";
                for (int e = 0; e < edits; e++)
                {
                    int at = (int)footer + random.Next(footerLength + 10);
                    if (random.Next(2) == 0)
                        bytes[at] ^= (byte)(1 << random.Next(8));
                    else
                        bytes[at] = (byte)random.Next(256);
                    what += $" @{at}";
                }
                return bytes;
            }
            // A Block's field or a vector's count, found by their 8-byte alignment in the footer: every aligned int64 and
            // int32 is a candidate, most of them block fields.
            int slots = Math.Max(1, footerLength / 4);
            int slot = (int)footer + (4 * random.Next(slots));
            long value = random.Next(3) switch
            {
                0 => Interesting[random.Next(Interesting.Length)],
                1 => BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(Math.Min(slot, bytes.Length - 8))) + (8 * (random.Next(9) - 4)),
                _ => random.Next(original.Length + 64),
            };
            if (random.Next(2) == 0 && slot + 8 <= bytes.Length)
            {
                BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(slot), value);
                what = $"footer int64 @{slot} = {value}";
            }
            else
            {
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(Math.Min(slot, bytes.Length - 4)), unchecked((int)value));
                what = $"footer int32 @{slot} = {unchecked((int)value)}";
            }
            return bytes;
        }

        private static string? Check(byte[] bytes, IpcProjection? projection, int degree, Random random, out bool rejected, out TimeSpan took, out long allocated)
        {
            rejected = false;
            var clock = System.Diagnostics.Stopwatch.StartNew();
            long before = GC.GetAllocatedBytesForCurrentThread();
            try
            {
                var options = new Lz4FastOptions { MaxDegreeOfParallelism = degree, MinimumParallelLength = 1, Projection = projection, VerifyOffsets = random.Next(2) == 0 };
                // The official factory decompresses ZSTD bodies (LZ4 ones never reach it).
                var codecs = new Apache.Arrow.Compression.CompressionCodecFactory();
                using Lz4ArrowFileReader reader = random.Next(2) == 0
                    ? new Lz4ArrowFileReader(bytes.AsMemory(), options, SlabMemoryAllocator.Shared, codecs)
                    : new Lz4ArrowFileReader(TemporaryFile(bytes), options, SlabMemoryAllocator.Shared, leaveOpen: false, codecs);
                _ = reader.Schema;
                int reads = reader.RecordBatchCount == 0 ? 0 : 1 + random.Next(3);
                bool concurrent = random.Next(4) == 0;
                var alone = new Dictionary<int, string>();
                for (int r = 0; r < reads; r++)
                {
                    int i = random.Next(reader.RecordBatchCount);
                    string outcome = Outcome(reader, i, asynchronous: random.Next(3) == 0);
                    if (!concurrent && outcome[0] == '!')
                        return Rejected(out rejected);
                    alone[i] = outcome;
                }
                if (concurrent)
                {
                    if (ReadAtOnce(reader, alone) is { } problem)
                        return problem;
                    if (alone.Values.Any(o => o[0] == '!'))
                        return Rejected(out rejected);
                }
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException)
            {
                rejected = true;
                return Misworded(e);
            }
            catch (NotSupportedException e)
            {
                rejected = true;
                return Misworded(e);
            }
            catch (Exception e)
            {
                return $"threw {e.GetType().Name}: {e.Message} (at {e.StackTrace?.Split('\n').FirstOrDefault()?.Trim()})";
            }
            finally
            {
                took = clock.Elapsed;
                allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            }
            return null;
        }

        private static string ProjectionText(IpcProjection projection) =>
            projection.Names is { } names ? $"names [{string.Join(",", names)}]" : $"[{string.Join(",", projection.Indices!)}]";

        /// <summary>A file holding <paramref name="bytes"/>, open for reading and deleted when closed.</summary>
        private static FileStream TemporaryFile(byte[] bytes)
        {
            var file = new FileStream(Path.Combine(Path.GetTempPath(), "ipc-file-fuzz-" + Guid.NewGuid().ToString("N")), FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.DeleteOnClose);
            file.Write(bytes, 0, bytes.Length);
            file.Position = 0;
            return file;
        }
    }
}
