using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;
#if !WITHOUT_OFFICIAL_CODEC
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;
#endif

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="IpcCompressingStream"/>: Arrow's writers write uncompressed IPC into it, and what comes out must read
    /// back equal with Arrow's own readers and the official codec, frame for frame what the codec path writes, at any
    /// thread count, for streams and files (random access included), from every producer of the corpus.
    /// </summary>
    public partial class IpcCompressingStreamTests
    {
        // Built against an Apache.Arrow older than any Apache.Arrow.Compression, the ZSTD stream cannot be read.
        public static IEnumerable<object[]> CorpusStreams() =>
            Corpus.CommittedIpcFiles().Where(f => !f.Contains("empty") && (Official() is not null || !f.Contains("zstd"))).Select(f => new object[] { f });

        private static List<RecordBatch> Batches(string file) => ArrowData.ReadAll(Corpus.Committed(file), new Lz4FastCodecFactory(Official()));

        private static ICompressionCodecFactory? Official() =>
#if WITHOUT_OFFICIAL_CODEC
            null;
#else
            new OfficialFactory();
#endif

        /// <summary>The batches as Arrow's writer writes them with no codec: what the compressing stream takes in.</summary>
        private static byte[] WritePlain(IReadOnlyList<RecordBatch> batches)
        {
            using var stream = new MemoryStream();
            using (var writer = new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return stream.ToArray();
        }

        /// <summary>Writes the batches uncompressed through the compressing stream, synchronously or not.</summary>
        internal static byte[] WriteCompressed(IReadOnlyList<RecordBatch> batches, bool file, Lz4FastOptions options, bool async = false, double minSpaceSavings = 0)
        {
            using var output = new MemoryStream();
            var compressing = new IpcCompressingStream(output, options, leaveOpen: true, minSpaceSavings);
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(compressing, batches[0].Schema, leaveOpen: true)
                : new ArrowStreamWriter(compressing, batches[0].Schema, leaveOpen: true))
            {
                if (async)
                {
                    foreach (RecordBatch batch in batches)
                        writer.WriteRecordBatchAsync(batch).GetAwaiter().GetResult();
                    writer.WriteEndAsync().GetAwaiter().GetResult();
                }
                else
                {
                    foreach (RecordBatch batch in batches)
                        writer.WriteRecordBatch(batch);
                    writer.WriteEnd();
                }
            }
            if (async)
                compressing.DisposeAsync().AsTask().GetAwaiter().GetResult();
            else
                compressing.Dispose();
            Assert.Equal(output.Length, compressing.BytesWritten);
            return output.ToArray();
        }

        [Theory]
        [MemberData(nameof(CorpusStreams))]
        public void Corpus_batches_written_through_the_stream_read_back_equal(string file)
        {
            List<RecordBatch> batches = Batches(file);
            try
            {
                foreach (int degree in new[] { 1, 2, 8 })
                {
                    foreach (bool fileFormat in new[] { false, true })
                    {
                        byte[] written = WriteCompressed(batches, fileFormat, IpcWrapped.Options(degree, minimumParallelLength: 1024), async: degree == 8);
                        List<RecordBatch> read = ArrowData.ReadAll(written, fileFormat, new Lz4FastCodecFactory(Official()));
                        ArrowData.AssertSame(batches, read);
                        ArrowData.DisposeAll(read);
                        AssertSomeBatchCompressed(written, expected: !file.Contains("incompressible"));
                    }
                }
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

#if !WITHOUT_OFFICIAL_CODEC
        [Theory]
        [MemberData(nameof(CorpusStreams))]
        public async Task A_file_written_through_the_stream_gives_random_access_to_every_batch(string file)
        {
            List<RecordBatch> batches = Batches(file);
            try
            {
                byte[] written = WriteCompressed(batches, file: true, IpcWrapped.Options(2, minimumParallelLength: 1024));
                using var reader = new ArrowFileReader(new MemoryStream(written), new OfficialFactory());
                Assert.Equal(batches.Count, await reader.RecordBatchCountAsync());
                // Back to front, so that every batch is found through the footer, not by reading on. (Not disposed one by
                // one: the reader shares dictionaries between the batches it returns.)
                var read = new List<RecordBatch>();
                for (int i = batches.Count - 1; i >= 0; i--)
                {
                    RecordBatch batch = await reader.ReadRecordBatchAsync(i);
                    ArrowData.AssertSame(new[] { batches[i] }, new[] { batch });
                    read.Add(batch);
                }
                GC.KeepAlive(read);
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }
#endif

        [Theory]
        [MemberData(nameof(CorpusStreams))]
        public void Every_frame_is_the_codec_paths_frame_at_any_thread_count(string file)
        {
            List<RecordBatch> batches = Batches(file);
            try
            {
                // In order and on 7 work items (a degree sets only how many the batch job posts, so 2 takes no path 8 does
                // not). The level reaches the encoder as an option of each buffer's frame: the slow high-compression one
                // runs on the parallel schedule alone.
                foreach (int level in new[] { 0, 9 })
                {
                    var codecOptions = new Lz4FastOptions { CompressionLevel = level, MaxDegreeOfParallelism = 1, ContentChecksum = true };
                    List<byte[]> expected = Frames(IpcWriter.Write(batches, new Lz4FastCodecFactory(codecOptions), fileFormat: false));
                    foreach (int degree in level == 0 ? new[] { 1, 8 } : new[] { 8 })
                    {
                        var options = new Lz4FastOptions { CompressionLevel = level, MaxDegreeOfParallelism = degree, MinimumParallelLength = 1024, ContentChecksum = true };
                        List<byte[]> actual = Frames(WriteCompressed(batches, file: false, options));
                        Assert.Equal(expected.Count, actual.Count);
                        for (int i = 0; i < expected.Count; i++)
                            Assert.True(expected[i].AsSpan().SequenceEqual(actual[i]), $"{file}, level {level}, degree {degree}: buffer {i} differs from the codec path's");
                    }
                }
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

#if !WITHOUT_OFFICIAL_CODEC
        // README and docs/parallel-write.md, the example.
        [Fact]
        public async Task The_documented_example_writes_a_file_that_reads_back()
        {
            RecordBatch[] batches = TestTables.Batches(4, 30000, seed: 12);
            Schema schema = batches[0].Schema;
            string path = Path.Combine(Path.GetTempPath(), $"ipc-compressing-{Guid.NewGuid():N}.arrow");
            try
            {
                // SNIPPET
                using var output = File.Create(path);
                using (var compressing = new IpcCompressingStream(output))          // options, leaveOpen, minSpaceSavings
                using (var writer = new ArrowFileWriter(compressing, schema))         // or ArrowStreamWriter; no codec in IpcOptions
                {
                    foreach (RecordBatch batch in batches)
                        writer.WriteRecordBatch(batch);
                    writer.WriteEnd();
                }
                // SNIPPET END

                using var reader = new ArrowFileReader(File.OpenRead(path), new OfficialFactory());
                Assert.Equal(batches.Length, await reader.RecordBatchCountAsync());
                var read = new List<RecordBatch>();
                for (int i = 0; i < batches.Length; i++)
                    read.Add(await reader.ReadRecordBatchAsync(i));
                ArrowData.AssertSameValues(batches, read);
                Assert.True(IpcMutator.Messages(File.ReadAllBytes(path)).Count(m => m.Lz4) == batches.Length, "every batch compressed");
            }
            finally
            {
                ArrowData.DisposeAll(batches);
                File.Delete(path);
            }
        }
#endif

        [Lz4CliFact]
        public void Every_frame_the_stream_writes_decodes_with_the_lz4_cli()
        {
            long checkedFrames = 0;
            foreach (string file in new[] { "ipc/pyarrow/strings.arrows", "ipc/rust/nested_dict.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/tiny_batches.arrows" })
            {
                List<RecordBatch> batches = Batches(file);
                try
                {
                    byte[] plain = WritePlain(batches);
                    var options = new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1024, ContentChecksum = true, BlockChecksum = true };
                    byte[] written = WriteCompressed(batches, file: false, options);
                    List<IpcMessages.Message> before = IpcMessages.Of(plain), after = IpcMessages.Of(written);
                    Assert.Equal(before.Count, after.Count);
                    using var frames = new MemoryStream();
                    using var contents = new MemoryStream();
                    for (int m = 0; m < before.Count; m++)
                    {
                        // Schemas, and batches in which no buffer saved space, are written as they came.
                        if (before[m].HeaderType == 1 || !IpcMessageParser.Parse(new FlatReader(after[m].Metadata, 0, after[m].Metadata.Length, 0)).Compressed)
                            continue;
                        (long Offset, long Length)[] source = IpcMessages.Buffers(before[m].Metadata), target = IpcMessages.Buffers(after[m].Metadata);
                        Assert.Equal(source.Length, target.Length);
                        for (int b = 0; b < source.Length; b++)
                        {
                            if (target[b].Length == 0 || BitConverter.ToInt64(after[m].Body, (int)target[b].Offset) == -1)
                                continue;
                            frames.Write(after[m].Body, (int)target[b].Offset + 8, (int)target[b].Length - 8);
                            contents.Write(before[m].Body, (int)source[b].Offset, (int)source[b].Length);
                            checkedFrames++;
                        }
                    }
                    Assert.True(frames.Length > 0, file);
                    Assert.True(contents.ToArray().AsSpan().SequenceEqual(ReferenceCli.Decompress(frames.ToArray())), $"{file}: the lz4 CLI decodes the frames to other bytes");
                }
                finally
                {
                    ArrowData.DisposeAll(batches);
                }
            }
            Assert.True(checkedFrames > 100, $"only {checkedFrames} frames");
        }

        [Fact]
        public void A_compressed_stream_passes_through_unchanged()
        {
            foreach (string file in Corpus.CommittedIpcFiles())
            {
                byte[] input = File.ReadAllBytes(Corpus.Committed(file));
                using var output = new MemoryStream();
                using (var compressing = new IpcCompressingStream(output, IpcWrapped.Options(2), leaveOpen: true))
                {
                    // Odd-sized writes: message boundaries fall anywhere.
                    for (int at = 0; at < input.Length; at += 777)
                        compressing.Write(input, at, Math.Min(777, input.Length - at));
                }
                Assert.True(input.AsSpan().SequenceEqual(output.ToArray()), file);
            }
        }

        [Fact]
        public void Writes_allocate_a_small_constant_per_message()
        {
            RecordBatch[] batches = TestTables.Batches(12, 65536, seed: 5);
            try
            {
                var options = IpcWrapped.Options(2, minimumParallelLength: 1024);
                using var output = new MemoryStream(64 << 20);
                using var compressing = new IpcCompressingStream(output, options, leaveOpen: true);
                using var writer = new ArrowStreamWriter(compressing, batches[0].Schema, leaveOpen: true);
                writer.WriteRecordBatch(batches[0]);
                writer.WriteRecordBatch(batches[1]);
                int buffers = IpcMessages.Buffers(IpcMessages.Of(output.ToArray())[1].Metadata).Length;

                // Arrow's own writer allocates too: measured alone on the same batches, then with the stream.
                using var plain = new MemoryStream(64 << 20);
                using var plainWriter = new ArrowStreamWriter(plain, batches[0].Schema, leaveOpen: true);
                plainWriter.WriteRecordBatch(batches[0]);
                long arrowBefore = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 2; i < batches.Length; i++)
                    plainWriter.WriteRecordBatch(batches[i]);
                long arrow = GC.GetAllocatedBytesForCurrentThread() - arrowBefore;

                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 2; i < batches.Length; i++)
                    writer.WriteRecordBatch(batches[i]);
                compressing.Flush();
                long ours = GC.GetAllocatedBytesForCurrentThread() - before - arrow;
                long perMessage = ours / (batches.Length - 2);
                Assert.True(perMessage < 2048 + (64 * buffers), $"{perMessage} bytes per message beyond Arrow's writer ({buffers} buffers each)");
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        [Fact]
        public async Task Async_writes_read_back_equal()
        {
            RecordBatch[] batches = TestTables.Batches(6, 20000, seed: 9);
            try
            {
                using var output = new MemoryStream();
                await using (var compressing = new IpcCompressingStream(output, IpcWrapped.Options(2, 1024), leaveOpen: true))
                {
                    using var writer = new ArrowStreamWriter(compressing, batches[0].Schema, leaveOpen: true);
                    foreach (RecordBatch batch in batches)
                        await writer.WriteRecordBatchAsync(batch);
                    await writer.WriteEndAsync();
                    await compressing.FlushAsync();
                    // Flush waits for the pipeline: everything written so far is in the output.
                    List<RecordBatch> sofar = ArrowData.ReadAll(output.ToArray(), fileFormat: false, new Lz4FastCodecFactory());
                    Assert.Equal(batches.Length, sofar.Count);
                    ArrowData.DisposeAll(sofar);
                }
                List<RecordBatch> read = ArrowData.ReadAll(output.ToArray(), fileFormat: false, new Lz4FastCodecFactory());
                ArrowData.AssertSameValues(batches, read);
                ArrowData.DisposeAll(read);
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        [Fact]
        public void Malformed_input_fails_with_its_offset_and_writes_no_half_message()
        {
            RecordBatch[] batches = TestTables.Batches(3, 5000, seed: 3);
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            List<IpcMutator.Message> messages = IpcMutator.Messages(plain);
            var random = new Random(11);
            int refused = 0, passed = 0;
            for (int round = 0; round < 600; round++)
            {
                byte[] mutant = IpcMutator.Mutate(plain, messages, random, out string what);
                using var output = new MemoryStream();
                var compressing = new IpcCompressingStream(output, IpcWrapped.Options(2, 1024), leaveOpen: true);
                bool written = false;
                try
                {
                    for (int at = 0; at < mutant.Length; at += 4096)
                        compressing.Write(mutant, at, Math.Min(4096, mutant.Length - at));
                    written = true;
                    compressing.Dispose();
                    passed++;
                }
                catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
                {
                    // Not IPC: InvalidDataException with the offset; a schema Arrow .NET cannot read: NotSupportedException.
                    refused++;
                    if (e is InvalidDataException)
                        Assert.IsType<Lz4FrameException>(e.InnerException);
                    Assert.Contains("byte offset", e.Message, StringComparison.Ordinal);
                    // After a failed write, later calls say the stream failed; disposing it does not throw again.
                    if (!written)
                        Assert.Throws<InvalidOperationException>(() => compressing.Write(new byte[1], 0, 1));
                    compressing.Dispose();
                    AssertWholeMessages(output.ToArray(), what);
                }
            }
            Assert.True(refused > 50 && passed > 50, $"{refused} refused, {passed} passed");
        }

        [Fact]
        public void An_input_that_ends_inside_a_message_fails_at_dispose()
        {
            RecordBatch[] batches = TestTables.Batches(2, 5000, seed: 4);
            using var stream = new MemoryStream();
            using (var writer = new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true))
            {
                writer.WriteRecordBatch(batches[0]);
                writer.WriteRecordBatch(batches[1]);
            }
            ArrowData.DisposeAll(batches);
            byte[] plain = stream.ToArray();
            using var output = new MemoryStream();
            var compressing = new IpcCompressingStream(output, leaveOpen: true);
            compressing.Write(plain, 0, plain.Length - 100);
            InvalidDataException e = Assert.Throws<InvalidDataException>(() => compressing.Dispose());
            Assert.Contains("message body", e.Message, StringComparison.Ordinal);
            AssertWholeMessages(output.ToArray(), "truncated");
        }

        /// <summary>Some batch of the output is LZ4-compressed (every corpus table but the incompressible one compresses).</summary>
        private static void AssertSomeBatchCompressed(byte[] written, bool expected)
        {
            int compressed = IpcMutator.Messages(written).Count(m => m.Lz4);
            Assert.Equal(expected, compressed > 0);
        }

        /// <summary>The output is a sequence of whole messages, end markers included (it may stop between any two).</summary>
        private static void AssertWholeMessages(byte[] output, string what)
        {
            int position = 0;
            while (position + 8 <= output.Length)
            {
                int length = BitConverter.ToInt32(output, position + 4);
                Assert.Equal(-1, BitConverter.ToInt32(output, position));
                if (length > 0)
                {
                    var reader = new FlatReader(output, position + 8, length, position + 8);
                    position += 8 + length + (int)IpcMessageParser.Parse(reader).BodyLength;
                }
                else
                {
                    position += 8;
                }
            }
            Assert.True(position == output.Length, $"{what}: the output stops inside a message ({position} of {output.Length})");
        }

        [Fact]
        public void A_message_array_that_grows_is_read_where_it_is_now()
        {
            // The message array grows as a body arrives; the one it replaced goes back to the shared pool, and whoever
            // rents it next may write over it. Here the test does, between writes, on the same thread (whose pool cache
            // hands that array out first): the metadata must be read from the array that holds it now.
            RecordBatch[] batches = TestTables.Batches(3, 30000, seed: 8);
            byte[] plain = WritePlain(batches);
            using var output = new MemoryStream();
            using (var compressing = new IpcCompressingStream(output, IpcWrapped.Options(2, 1024), leaveOpen: true))
            {
                for (int at = 0; at < plain.Length; at += 3000)
                {
                    compressing.Write(plain, at, Math.Min(3000, plain.Length - at));
                    for (int size = 4096; size <= 1 << 22; size *= 2)
                    {
                        byte[] scribble = System.Buffers.ArrayPool<byte>.Shared.Rent(size);
                        scribble.AsSpan().Fill(0xEE);
                        System.Buffers.ArrayPool<byte>.Shared.Return(scribble);
                    }
                }
            }
            List<RecordBatch> read = ArrowData.ReadAll(output.ToArray(), fileFormat: false, new Lz4FastCodecFactory());
            ArrowData.AssertSameValues(batches, read);
            ArrowData.DisposeAll(read);
            ArrowData.DisposeAll(batches);
        }

        /// <summary>
        /// Each non-empty buffer of each batch (length prefix and frame, or -1 and raw bytes), in stream order. A batch
        /// in which no buffer saves space is written uncompressed, where the codec path writes every buffer raw: its
        /// buffers count as raw ones.
        /// </summary>
        private static List<byte[]> Frames(byte[] stream)
        {
            var frames = new List<byte[]>();
            foreach (IpcMutator.Message message in IpcMutator.Messages(stream))
            {
                byte[] metadata = stream.AsSpan(message.Metadata, message.MetadataLength).ToArray();
                IpcMessage parsed = IpcMessageParser.Parse(new FlatReader(metadata, 0, metadata.Length, 0));
                if (parsed.HeaderType == 1)
                    continue;
                foreach ((long offset, long length) in IpcMessages.Buffers(metadata))
                {
                    ReadOnlySpan<byte> buffer = stream.AsSpan(message.Body + (int)offset, (int)length);
                    // The codec path writes an empty buffer as a zero length prefix; Arrow C++ and this stream leave it empty.
                    if (length == 0 || (parsed.Compressed && length == 8 && BitConverter.ToInt64(buffer) == 0))
                        continue;
                    frames.Add(parsed.Compressed ? buffer.ToArray() : BitConverter.GetBytes(-1L).Concat(buffer.ToArray()).ToArray());
                }
            }
            return frames;
        }
    }
}
