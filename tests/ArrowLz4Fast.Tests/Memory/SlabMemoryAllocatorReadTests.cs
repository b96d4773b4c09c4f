using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Whole reads of every corpus stream with <see cref="SlabMemoryAllocator"/> give the batches the official codec
    /// reads with Arrow's default allocator, also when the allocator hands out reused memory (second read), when it
    /// is shared by concurrent readers, and with clearing off. Writers take it too.
    /// </summary>
    public class SlabMemoryAllocatorReadTests
    {
        private static readonly SlabMemoryAllocatorOptions NoIdleTrim = new() { IdleTrimDelay = Timeout.InfiniteTimeSpan };

        public static IEnumerable<object[]> CommittedFiles() => Corpus.CommittedIpcFiles().Select(f => new object[] { f });

        public static IEnumerable<object[]> SharedOnlyFiles() => Corpus.SharedOnlyIpcFiles.Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public void Committed_stream_reads_the_official_batches_with_the_allocator(string file) =>
            AssertReadsOfficialBatches(Corpus.Committed(file));

        [SharedCorpusTheory]
        [MemberData(nameof(SharedOnlyFiles))]
        public void Large_shared_stream_reads_the_official_batches_with_the_allocator(string file) =>
            AssertReadsOfficialBatches(Corpus.Shared(file));

        private static void AssertReadsOfficialBatches(string path)
        {
            byte[] bytes = File.ReadAllBytes(path);
            bool fileFormat = path.EndsWith(".arrow", StringComparison.Ordinal);
            var factory = new Lz4FastCodecFactory(new OfficialFactory());
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat, new OfficialFactory());

            foreach (bool clear in new[] { true, false })
            {
                var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { ClearBuffers = clear, IdleTrimDelay = Timeout.InfiniteTimeSpan });
                // The second read is served from the blocks the first one returned.
                for (int read = 0; read < 2; read++)
                {
                    ReadCompareAndDispose(bytes, fileFormat, factory, allocator, official);
                    AssertAllReturned(allocator);
                }
            }
            ArrowData.DisposeAll(official);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadCompareAndDispose(byte[] bytes, bool fileFormat, ICompressionCodecFactory factory, SlabMemoryAllocator allocator, List<RecordBatch> expected)
        {
            List<RecordBatch> ours = ArrowData.ReadAll(bytes, fileFormat, factory, allocator);
            ArrowData.AssertSame(expected, ours);
            ArrowData.DisposeAll(ours);
        }

        [Fact]
        public void Arrow_context_carries_the_allocator_to_the_stream_and_file_readers()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            var context = new ArrowContext(allocator, new Lz4FastCodecFactory());
            foreach (string file in new[] { "ipc/pyarrow/strings.arrows", "ipc/java/nested_dict.arrows" })
            {
                ReadWithContext(context, File.ReadAllBytes(Corpus.Committed(file)));
                AssertAllReturned(allocator);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadWithContext(ArrowContext context, byte[] bytes)
        {
            List<RecordBatch> official = ArrowData.ReadAll(bytes, false, new OfficialFactory());
            var ours = new List<RecordBatch>();
            using (var reader = new ArrowStreamReader(context, new MemoryStream(bytes)))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    ours.Add(batch);
            }
            Assert.True(((SlabMemoryAllocator)context.Allocator).BytesInUse > 0);
            ArrowData.AssertSame(official, ours);
            ArrowData.DisposeAll(ours);
        }

        [Fact]
        public void Readers_on_two_threads_sharing_one_allocator_read_the_official_batches()
        {
            string[] files = Corpus.CommittedIpcFiles().Where(f => !f.Contains("zstd", StringComparison.Ordinal)).ToArray();
            var streams = files.Select(f => (Bytes: File.ReadAllBytes(Corpus.Committed(f)), File: f.EndsWith(".arrow", StringComparison.Ordinal))).ToArray();
            var expected = streams.Select(s => ArrowData.ReadAll(s.Bytes, s.File, new OfficialFactory())).ToArray();
            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = 16 << 20, IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var factory = new Lz4FastCodecFactory();
            Exception? failure = null;

            void Read(int thread)
            {
                try
                {
                    for (int round = 0; round < 3; round++)
                    {
                        for (int i = 0; i < streams.Length; i++)
                        {
                            int s = (i + thread * streams.Length / 2) % streams.Length;
                            List<RecordBatch> ours = ArrowData.ReadAll(streams[s].Bytes, streams[s].File, factory, allocator);
                            ArrowData.AssertSame(expected[s], ours);
                            ArrowData.DisposeAll(ours);
                        }
                    }
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref failure, e, null);
                }
            }

            var threads = new[] { new Thread(() => Read(0)), new Thread(() => Read(1)) };
            foreach (Thread t in threads)
                t.Start();
            foreach (Thread t in threads)
                t.Join();
            Assert.Null(failure);
            AssertAllReturned(allocator);
            Assert.True(allocator.BytesRetained <= 16 << 20);
            foreach (List<RecordBatch> batches in expected)
                ArrowData.DisposeAll(batches);
        }

        /// <summary>
        /// Every buffer comes back once its batch is disposed, except the body of a dictionary message: Arrow's reader
        /// never disposes it, and the dictionary's uncompressed buffers point into it, so it comes back through the
        /// finalizer once the batches are unreachable (and, for a small one, once its group is no longer being filled).
        /// </summary>
        private static void AssertAllReturned(SlabMemoryAllocator allocator)
        {
            // A small buffer dropped undisposed comes back once the group tracking it is full (a thread's cache holds the
            // group it is filling): a thread that goes on allocating lets go of it. This thread's first allocation also
            // forgets the caches of reader threads that ended, with their groups.
            for (int i = 0; i < OwnerGroup.Capacity; i++)
                allocator.Allocate(64).Dispose();
            for (int i = 0; i < 10 && allocator.BytesInUse != 0; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            Assert.Equal(0, allocator.BytesInUse);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void Writers_take_the_allocator_and_what_they_write_reads_back(bool fileFormat)
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            RecordBatch[] batches = TestTables.Batches(3, 20_000, seed: 11);
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() };
            using var output = new MemoryStream();
            using (ArrowStreamWriter writer = fileFormat
                ? new ArrowFileWriter(output, batches[0].Schema, leaveOpen: true, options, allocator)
                : new ArrowStreamWriter(output, batches[0].Schema, leaveOpen: true, options, allocator))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            Assert.True(allocator.Statistics.Allocations > 0);
            Assert.Equal(0, allocator.BytesInUse);

            List<RecordBatch> read = ArrowData.ReadAll(output.ToArray(), fileFormat, new OfficialFactory(), allocator);
            ArrowData.AssertSameValues(batches, read);
            ArrowData.DisposeAll(read);
            Assert.Equal(0, allocator.BytesInUse);
        }
    }
}
