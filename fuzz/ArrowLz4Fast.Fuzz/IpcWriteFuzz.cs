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
    /// --ipc-write: mutants of the corpus IPC streams and files as Arrow's writers hand them to IpcCompressingStream
    /// (uncompressed), written into it in random chunk sizes at 1 to 3 threads. Only InvalidDataException (with its
    /// Lz4FrameException) or, for a schema Arrow .NET cannot read, NotSupportedException may come out; a refused input leaves whole messages in the output; an accepted one must read
    /// back, with Arrow's reader and the official codec, as the mutant itself reads uncompressed. Each mutant has the
    /// time and memory budget of --ipc.
    /// </summary>
    internal static class IpcWriteFuzz
    {
        private static readonly TimeSpan TimeBudget = TimeSpan.FromSeconds(5);
        private const long AllocationBudget = 256L << 20;

        public static int Run(FuzzOptions options, string root)
        {
            var seeds = new List<(string Name, byte[] Bytes, List<IpcMutator.Message> Messages)>();
            foreach (string file in Directory.EnumerateFiles(Path.Combine(root, "corpus", "ipc"), "*.arrow*", SearchOption.AllDirectories)
                .Where(f => !f.EndsWith(".json", StringComparison.Ordinal)).OrderBy(f => f, StringComparer.Ordinal))
            {
                // What Arrow's writer would write with no codec: the stream decompressed (ZSTD bodies stay compressed and pass through).
                byte[] plain = Decompressed(File.ReadAllBytes(file));
                seeds.Add((Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file), plain, IpcMutator.Messages(plain)));
            }
            Console.WriteLine($"fuzz --ipc-write: {seeds.Count} seed streams, seed {options.Seed}, mutants {options.Start}..{options.Start + options.Count - 1}, {options.Threads} thread(s)");

            long first = options.Index ?? options.Start;
            long count = options.Index.HasValue ? 1 : options.Count;
            var tally = new FuzzTally(TimeBudget, AllocationBudget, " through the stream");
            Parallel.For(0, count, new ParallelOptions { MaxDegreeOfParallelism = options.Threads }, k =>
            {
                long index = first + k;
                var random = new Random(unchecked((int)(options.Seed * 2654435761UL) ^ (int)index ^ (int)(index >> 32)));
                var seed = seeds[random.Next(seeds.Count)];
                byte[] mutant = random.Next(4) == 0
                    ? IpcMutator.MutateSchema(seed.Bytes, seed.Messages, random, out string what)
                    : IpcMutator.Mutate(seed.Bytes, seed.Messages, random, out what);
                int degree = 1 + random.Next(3);
                string? problem = Check(mutant, degree, random, out bool wasRejected, out TimeSpan took, out long allocated);
                tally.Record(problem, wasRejected, took, allocated, options, $"ipc-write-{options.Seed}-{index}.arrows", mutant, $"  --ipc-write --seed {options.Seed} --index {index} [{seed.Name}, {what}, degree {degree}]");
            });
            tally.PrintFindings(options);
            Console.WriteLine($"fuzz --ipc-write: {count} mutants: {tally.Rejected} refused, {tally.Accepted} written, {tally.Failures} failure(s)");
            Console.WriteLine($"fuzz --ipc-write: through the stream, at most {tally.MaxTime.TotalMilliseconds:F0} ms and {tally.MaxAllocated:N0} bytes allocated for one mutant (budget {TimeBudget.TotalMilliseconds:F0} ms, {AllocationBudget:N0} bytes)");
            return tally.Failures == 0 ? 0 : 1;
        }

        private static byte[] Decompressed(byte[] bytes)
        {
            using var input = new IpcDecompressingStream(new MemoryStream(bytes, writable: false));
            using var output = new MemoryStream();
            input.CopyTo(output);
            // An IPC file is read as the stream it embeds; written as a file again, the footer would be missing.
            return output.ToArray();
        }

        private static string? Check(byte[] bytes, int degree, Random random, out bool rejected, out TimeSpan took, out long allocated)
        {
            rejected = false;
            var clock = System.Diagnostics.Stopwatch.StartNew();
            long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
            // Every batch parallel, or the default minimum: then at two threads and more small batches go through the ring.
            int minimum = random.Next(2) == 0 ? 1 : Lz4Parallelism.DefaultMinimumLength;
            var options = new Lz4FastOptions { MaxDegreeOfParallelism = degree, MinimumParallelLength = minimum };
            int[] chunks = { 1, 7, 64, 4096, 1 << 20, int.MaxValue };
            using var output = new MemoryStream();
            var compressing = new IpcCompressingStream(output, options, leaveOpen: true);
            bool written = false;
            try
            {
                for (int at = 0; at < bytes.Length;)
                {
                    int n = (int)Math.Min(chunks[random.Next(chunks.Length)], bytes.Length - at);
                    compressing.Write(bytes, at, n);
                    at += n;
                }
                written = true;
                compressing.Dispose();
            }
            catch (Exception e) when ((e is InvalidDataException && e.InnerException is Lz4FrameException) || e is NotSupportedException)
            {
                rejected = true;
                if (!written)
                {
                    try
                    {
                        compressing.Write(bytes, 0, 1);
                        took = clock.Elapsed;
                        allocated = 0;
                        return "a write after the failure was taken";
                    }
                    catch (InvalidOperationException)
                    {
                    }
                }
                compressing.Dispose();
            }
            catch (Exception e)
            {
                took = clock.Elapsed;
                allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
                return $"the stream threw {e.GetType().Name}: {e.Message}";
            }
            took = clock.Elapsed;
            allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
            byte[] result = output.ToArray();
            if (rejected)
                return WholeMessages(result);

            List<RecordBatch>? ours = null, reference = null;
            try
            {
                try
                {
                    reference = ReadAll(bytes);
                }
                catch (Exception)
                {
                    return null; // Arrow cannot read the mutant itself: nothing to compare the output with.
                }
                try
                {
                    ours = ReadAll(result);
                }
                catch (Exception e)
                {
                    return $"the mutant reads uncompressed, but its compressed output does not: {e.GetType().Name}: {e.Message}";
                }
                return IpcFuzz.Compare(reference, ours);
            }
            finally
            {
                foreach (RecordBatch batch in (reference ?? new List<RecordBatch>()).Concat(ours ?? new List<RecordBatch>()))
                    batch.Dispose();
            }
        }

        /// <summary>A refused input leaves a run of whole messages (end markers included) in the output.</summary>
        private static string? WholeMessages(byte[] output)
        {
            int end = 0;
            try
            {
                end = WholeMessageLength(output);
            }
            catch (Exception e)
            {
                return $"the refused input left output that does not parse: {e.Message}";
            }
            return end == output.Length ? null : $"the refused input left part of a message in the output ({end} of {output.Length} bytes are whole messages)";
        }

        /// <summary>How many bytes at the start of <paramref name="output"/> are whole messages (file signature and end markers included).</summary>
        internal static int WholeMessageLength(byte[] output)
        {
            int position = output.Length >= 8 && output.AsSpan(0, 6).SequenceEqual("ARROW1"u8) ? 8 : 0;
            while (position + 4 <= output.Length)
            {
                int length = System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(output.AsSpan(position));
                int prefix = 4;
                if (length == -1)
                {
                    if (position + 8 > output.Length)
                        break;
                    length = System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(output.AsSpan(position + 4));
                    prefix = 8;
                }
                if (length == 0)
                {
                    position += prefix;
                    continue;
                }
                if (length < 0 || position + prefix + (long)length > output.Length)
                    break;
                int metadata = position + prefix;
                Ipc.IpcMessage message = Ipc.IpcMessageParser.Parse(new Ipc.FlatReader(output, metadata, length, metadata));
                long next = metadata + (long)length + message.BodyLength;
                if (next > output.Length)
                    break;
                position = (int)next;
            }
            return position;
        }

        private static List<RecordBatch> ReadAll(byte[] bytes)
        {
            var factory = new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
            using var reader = new ArrowStreamReader(new MemoryStream(bytes, writable: false), SlabMemoryAllocator.Shared, factory, leaveOpen: false);
            var batches = new List<RecordBatch>();
            try
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
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
    }
}
