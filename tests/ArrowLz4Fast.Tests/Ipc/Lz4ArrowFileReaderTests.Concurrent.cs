using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// One reader read on several threads at once, synchronously and asynchronously, each read released with the
    /// others by a barrier so they overlap: every batch equals ArrowFileReader's, the first reads racing to prepare the
    /// dictionaries too; a read failing on one thread gives the error it gives alone while the others read right; a
    /// disposed reader refuses reads on every thread.
    /// </summary>
    public sealed partial class Lz4ArrowFileReaderTests
    {
        private const int Threads = 8;

        private static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

        [Theory]
        [InlineData("ipc/java/nested_dict.arrows", Input.Path, false)]
        [InlineData("ipc/java/nested_dict.arrows", Input.SeekableStream, true)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", Input.Memory, false)]
        [InlineData("ipc/rust/strings.arrows", Input.SeekableStream, false)]
        [InlineData("ipc/rust/strings.arrows", Input.Path, true)]
        [InlineData("ipc/pyarrow/wide.arrows", Input.Memory, true)]
        [InlineData("delta dictionaries", Input.Memory, false)]
        [InlineData("delta dictionaries", Input.Path, true)]
        public void Reads_on_several_threads_at_once_of_one_reader_equal_ArrowFileReaders(string stream, Input input, bool projected)
        {
            // The delta dictionary file's batches may not share dictionaries: a stream path per read there.
            byte[] file = stream == "delta dictionaries" ? DeltaDictionaryFile.Build(new Lz4FastCodecFactory()) : FileOf(Corpus.Committed(stream));
            int count, fields;
            using (var all = new Lz4ArrowFileReader(file))
            {
                count = all.RecordBatchCount;
                fields = all.Schema.FieldsList.Count;
            }
            int[] selected = projected ? new[] { fields - 1, 0 }.Distinct().OrderBy(f => f).ToArray() : Enumerable.Range(0, fields).ToArray();
            List<RecordBatch> expected = Enumerable.Range(0, count).Select(i => Expected(file, i)).ToList();
            try
            {
                var options = new Lz4FastOptions { Projection = projected ? IpcProjection.ByIndex(selected) : null, MaxDegreeOfParallelism = 2 };
                using Lz4ArrowFileReader reader = Open(file, Write(file), input, options);
                // The reader is fresh: the first round's reads race to prepare the dictionaries.
                InRounds(rounds: 12, (thread, round, random) =>
                {
                    int i = random.Next(count);
                    using RecordBatch got = Read(reader, i, asynchronous: random.Next(2) == 0).GetAwaiter().GetResult();
                    AssertProjected(expected[i], selected, got, $"{stream} {input} thread {thread} round {round} batch {i}");
                });
                foreach (int i in Enumerable.Range(0, count).Reverse())
                {
                    using RecordBatch got = reader.ReadRecordBatch(i);
                    AssertProjected(expected[i], selected, got, $"{stream} {input} batch {i} read alone after");
                }
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        /// <summary>
        /// Batch 1 has a broken frame in field 1's data buffer; some threads read it while the others read good batches:
        /// its error names the batch, buffer and field at the frame's offset, as read alone; the others' batches, and
        /// reads after, are right.
        /// </summary>
        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_read_failing_on_one_thread_fails_as_alone_while_the_others_read_right(bool projected)
        {
            byte[] file = FileOf(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            IpcFileFooter footer = IpcFileFooter.Read(IpcFileSource.Over(file));
            int count = footer.RecordBatches.Length;
            List<RecordBatch> expected = Enumerable.Range(0, count).Select(i => Expected(file, i)).ToList();
            IpcFileBlock block = footer.RecordBatches[1];
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(file.AsSpan((int)block.Offset + 8, block.MetadataLength - 8).ToArray());
            long at = block.Body + buffers[5].Offset + 8;
            file[at] ^= 0xFF;    // field 1's data buffer: its LZ4 frame's magic number
            int[] selected = projected ? new[] { 1 } : Enumerable.Range(0, expected[0].ColumnCount).ToArray();
            var options = new Lz4FastOptions { Projection = projected ? IpcProjection.ByIndex(1) : null, MaxDegreeOfParallelism = 2 };
            try
            {
                string alone;
                using (var single = new Lz4ArrowFileReader(file, options, null))
                {
                    single.ReadRecordBatch(0).Dispose();
                    alone = Assert.Throws<InvalidDataException>(() => single.ReadRecordBatch(1)).Message;
                }
                Assert.Contains("record batch 1 of the IPC file", alone, StringComparison.Ordinal);

                using var reader = new Lz4ArrowFileReader(file, options, null);
                int failures = 0;
                InRounds(rounds: 12, (thread, round, random) =>
                {
                    bool asynchronous = random.Next(2) == 0;
                    if ((thread + round) % 4 == 0)
                    {
                        var e = Assert.ThrowsAny<InvalidDataException>(() => Read(reader, 1, asynchronous).GetAwaiter().GetResult().Dispose());
                        Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                        Assert.Equal(alone, e.Message);
                        Interlocked.Increment(ref failures);
                        return;
                    }
                    int i = random.Next(count - 1);
                    i += i >= 1 ? 1 : 0;
                    using RecordBatch got = Read(reader, i, asynchronous).GetAwaiter().GetResult();
                    AssertProjected(expected[i], selected, got, $"thread {thread} round {round} batch {i} beside the failing reads");
                });
                Assert.Equal(Threads * 12 / 4, failures);
                foreach (int i in Enumerable.Range(0, count).Where(i => i != 1).Reverse())
                {
                    using RecordBatch got = reader.ReadRecordBatch(i);
                    AssertProjected(expected[i], selected, got, $"batch {i} read alone after");
                }
                Assert.Equal(alone, Assert.Throws<InvalidDataException>(() => reader.ReadRecordBatch(1)).Message);
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        [Theory]
        [InlineData(Input.Path)]
        [InlineData(Input.Memory)]
        public void A_reader_disposed_after_reads_on_several_threads_refuses_reads_on_every_thread(Input input)
        {
            byte[] file = FileOf(Corpus.Committed("ipc/java/nested_dict.arrows"));
            var reader = Open(file, Write(file), input, new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            int count = reader.RecordBatchCount;
            InRounds(rounds: 4, (_, _, random) => Read(reader, random.Next(count), random.Next(2) == 0).GetAwaiter().GetResult().Dispose());
            reader.Dispose();
            InRounds(rounds: 2, (_, _, random) =>
            {
                bool asynchronous = random.Next(2) == 0;
                Assert.Throws<ObjectDisposedException>(() => Read(reader, random.Next(count), asynchronous).GetAwaiter().GetResult());
            });
        }

        /// <summary>
        /// Disposing while reads run is the caller's error, yet not a crash: each read gives its batch right or fails
        /// with ObjectDisposedException or IOException (the file closed under it), and every read started after
        /// Dispose is refused.
        /// </summary>
        [Theory]
        [InlineData(Input.Path)]
        [InlineData(Input.SeekableStream)]
        [InlineData(Input.Memory)]
        public void A_reader_disposed_while_reads_run_fails_them_only_as_disposed(Input input)
        {
            byte[] file = FileOf(Corpus.Committed("ipc/java/nested_dict.arrows"));
            var reader = Open(file, Write(file), input, new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
            int count = reader.RecordBatchCount;
            int fields = reader.Schema.FieldsList.Count;
            List<RecordBatch> expected = Enumerable.Range(0, count).Select(i => Expected(file, i)).ToList();
            int[] selected = Enumerable.Range(0, fields).ToArray();
            int reads = 0, disposed = 0, refused = 0;
            try
            {
                InRounds(rounds: 16, (thread, round, random) =>
                {
                    // One thread disposes the reader in the middle of the rounds while the others read.
                    if (thread == 0 && round == 8)
                    {
                        reader.Dispose();
                        Volatile.Write(ref disposed, 1);
                        return;
                    }
                    bool after = Volatile.Read(ref disposed) != 0;
                    int i = random.Next(count);
                    try
                    {
                        using RecordBatch got = Read(reader, i, random.Next(2) == 0).GetAwaiter().GetResult();
                        Assert.False(after, "a read started after Dispose gave a batch");
                        AssertProjected(expected[i], selected, got, $"thread {thread} round {round} batch {i}");
                        Interlocked.Increment(ref reads);
                    }
                    catch (Exception e) when (e is ObjectDisposedException || (e is IOException && e is not InvalidDataException && !after))
                    {
                        if (after)
                            Interlocked.Increment(ref refused);
                    }
                });
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
            _output.WriteLine($"{input}: {reads} read(s) right, {refused} refused after Dispose");
            Assert.True(refused >= (Threads - 1) * 6, $"{refused} read(s) refused after Dispose");
        }

        /// <summary>
        /// Runs <paramref name="read"/> on <see cref="Threads"/> threads of their own, <paramref name="rounds"/> times
        /// each, every round started by all at once; fails with the first failure of any thread.
        /// </summary>
        private static void InRounds(int rounds, Action<int, int, Random> read)
        {
            using var barrier = new Barrier(Threads);
            var failures = new ConcurrentQueue<Exception>();
            Task[] threads = Enumerable.Range(0, Threads).Select(thread => Task.Factory.StartNew(
                () =>
                {
                    var random = new Random(1000 + thread);
                    for (int round = 0; round < rounds; round++)
                    {
                        if (!barrier.SignalAndWait(Patience))
                        {
                            failures.Enqueue(new TimeoutException($"thread {thread} waited {Patience} for the others at round {round}"));
                            return;
                        }
                        try
                        {
                            read(thread, round, random);
                        }
                        catch (Exception e)
                        {
                            // Kept, and the rounds go on, so the other threads are not left waiting at the barrier.
                            failures.Enqueue(e);
                        }
                    }
                },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default)).ToArray();
            Assert.True(Task.WaitAll(threads, Patience + Patience), "the threads did not end");
            if (failures.TryPeek(out Exception? first))
                throw new Xunit.Sdk.XunitException($"{failures.Count} read(s) of {Threads * rounds} failed; the first: {first}");
        }
    }
}
