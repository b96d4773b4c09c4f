using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// IpcMessageCompressor over every corpus stream's messages, decompressed first: the compressed messages, put
    /// back together as an IPC stream, read with Apache.Arrow.Compression to the original batches, and their frames
    /// decode with the lz4 CLI.
    /// </summary>
    public class IpcMessageCompressorTests
    {
        private static readonly Lz4FastOptions Parallel = IpcWrapped.Options(2, minimumParallelLength: 1);

        public static IEnumerable<object[]> Streams() =>
            Corpus.CommittedIpcFiles().Select(f => new object[] { Corpus.Committed(f) })
                .Concat(Corpus.SharedAvailable ? Corpus.SharedOnlyIpcFiles.Select(f => new object[] { Corpus.Shared(f) }) : System.Array.Empty<object[]>());

        [Theory]
        [MemberData(nameof(Streams))]
        public void Compressed_messages_read_with_the_official_codec_as_the_original_batches(string path)
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(path);
            var compressed = Compress(messages, Parallel, 0.0, out int count);
            List<RecordBatch> expected = ArrowData.ReadAll(path, new OfficialFactory());
            List<RecordBatch> actual = ArrowData.ReadAll(IpcMessages.Stream(compressed), fileFormat: false, new OfficialFactory());
            ArrowData.AssertSame(expected, actual);

            // A message is left as it is only when it has nothing to compress: not a batch, already compressed (ZSTD),
            // no buffer or no body, or (minimum savings 0) no buffer a frame makes smaller.
            for (int i = 0; i < messages.Count; i++)
            {
                IpcMessages.Message m = messages[i];
                bool sent = !compressed[i].Metadata.Span.SequenceEqual(m.Metadata);
                bool batch = m.HeaderType is IpcMessageParser.HeaderRecordBatch or IpcMessageParser.HeaderDictionaryBatch;
                if (!batch || IsCompressed(m.Metadata) || m.Body.Length == 0)
                    Assert.False(sent, $"message {i}");
                else if (!sent)
                    Assert.All(IpcMessages.Buffers(m.Metadata), b => Assert.True(FrameLength(m.Body.AsSpan((int)b.Offset, (int)b.Length), Parallel) > b.Length, $"message {i}"));
            }
            // In the incompressible streams a message may have no buffer a frame makes smaller (checked above).
            bool hasBody = messages.Any(m => m.Body.Length > 0 && !IsCompressed(m.Metadata));
            if (!path.Contains("incompressible", StringComparison.Ordinal))
                Assert.Equal(hasBody, count > 0);
            ArrowData.DisposeAll(expected);
            ArrowData.DisposeAll(actual);
        }

        [Theory]
        [MemberData(nameof(Streams))]
        public void Output_does_not_depend_on_the_degree_of_parallelism(string path)
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(path);
            var parallel = Compress(messages, Parallel, 0.1, out _);
            var sequential = Compress(messages, IpcWrapped.Options(1), 0.1, out _);
            for (int i = 0; i < messages.Count; i++)
            {
                Assert.True(parallel[i].Metadata.Span.SequenceEqual(sequential[i].Metadata.Span), $"metadata of message {i}");
                Assert.True(parallel[i].Body.Span.SequenceEqual(sequential[i].Body.Span), $"body of message {i}");
            }
        }

        [Lz4CliTheory]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/nested_dict.arrows")]
        [InlineData("ipc/rust/wide.arrows")]
        [InlineData("ipc/java/tiny_batches.arrows")]
        public void Every_frame_decodes_with_the_lz4_cli_to_the_original_buffer(string file)
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed(file));
            AssertEveryBufferDecodes(messages, Compress(messages, Parallel, 0.05, out _), useCli: true);
        }

        /// <summary>
        /// Checks every buffer of every compressed message against the original: aligned, empty ones empty, raw ones
        /// behind -1, the frames decoded (by the lz4 CLI when asked) to the original bytes. Returns (raw, framed) counts.
        /// </summary>
        private static (int Raw, int Framed) AssertEveryBufferDecodes(List<IpcMessages.Message> messages, List<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> compressed, bool useCli)
        {
            // The CLI decodes concatenated frames to the concatenated content: one run covers every frame of the stream.
            using var frames = new MemoryStream();
            using var contents = new MemoryStream();
            int raw = 0, framed = 0;
            for (int i = 0; i < messages.Count; i++)
            {
                if (compressed[i].Metadata.Span.SequenceEqual(messages[i].Metadata))
                    continue;
                byte[] body = compressed[i].Body.ToArray();
                var before = IpcMessages.Buffers(messages[i].Metadata);
                var after = IpcMessages.Buffers(compressed[i].Metadata.ToArray());
                Assert.Equal(before.Length, after.Length);
                Assert.Equal(0, body.Length % 8);
                for (int b = 0; b < before.Length; b++)
                {
                    Assert.Equal(0, after[b].Offset % 8);
                    byte[] original = messages[i].Body.AsSpan((int)before[b].Offset, (int)before[b].Length).ToArray();
                    if (before[b].Length == 0)
                    {
                        Assert.Equal(0, after[b].Length);   // empty stays empty, no prefix (Arrow C++)
                        continue;
                    }
                    long prefix = BinaryPrimitives.ReadInt64LittleEndian(body.AsSpan((int)after[b].Offset));
                    byte[] stored = body.AsSpan((int)after[b].Offset + 8, (int)after[b].Length - 8).ToArray();
                    if (prefix == -1)
                    {
                        raw++;
                        Assert.Equal(original, stored);
                        continue;
                    }
                    framed++;
                    Assert.Equal(original.Length, prefix);
                    if (useCli)
                    {
                        frames.Write(stored);
                        contents.Write(original);
                    }
                    else
                    {
                        byte[] decoded = new byte[original.Length];
                        Assert.True(Lz4FrameDecoder.TryDecode(stored, decoded, out int written) && written == decoded.Length);
                        Assert.Equal(original, decoded);
                    }
                }
            }
            if (useCli)
            {
                Assert.True(frames.Length > 0);
                Assert.Equal(contents.ToArray(), ReferenceCli.Decompress(frames.ToArray()));
            }
            return (raw, framed);
        }

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows", 0.5)]
        [InlineData("ipc/rust/strings.arrows", 0.75)]
        public void A_buffer_goes_raw_exactly_when_its_frame_saves_less_than_the_minimum(string file, double minSpaceSavings)
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed(file));
            var compressed = Compress(messages, Parallel, minSpaceSavings, out _);
            int raw = 0, framed = 0;
            for (int i = 0; i < messages.Count; i++)
            {
                if (compressed[i].Metadata.Span.SequenceEqual(messages[i].Metadata))
                    continue;
                var before = IpcMessages.Buffers(messages[i].Metadata);
                var after = IpcMessages.Buffers(compressed[i].Metadata.ToArray());
                for (int b = 0; b < before.Length; b++)
                {
                    if (before[b].Length == 0)
                        continue;
                    int frame = FrameLength(messages[i].Body.AsSpan((int)before[b].Offset, (int)before[b].Length), Parallel);
                    bool shouldBeRaw = 1.0 - ((double)frame / before[b].Length) < minSpaceSavings;
                    long prefix = BinaryPrimitives.ReadInt64LittleEndian(compressed[i].Body.Span.Slice((int)after[b].Offset));
                    Assert.Equal(shouldBeRaw ? -1 : before[b].Length, prefix);
                    Assert.Equal(8 + (shouldBeRaw ? before[b].Length : frame), after[b].Length);
                    if (shouldBeRaw) raw++; else framed++;
                }
            }
            Assert.True(raw > 0 && framed > 0, $"{raw} raw and {framed} framed buffers: the case does not test both");
            List<RecordBatch> expected = ArrowData.ReadAll(Corpus.Committed(file), new OfficialFactory());
            List<RecordBatch> actual = ArrowData.ReadAll(IpcMessages.Stream(compressed), fileFormat: false, new OfficialFactory());
            ArrowData.AssertSame(expected, actual);
        }

        [Theory]
        [InlineData("ipc/java/nested_dict.arrows")]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/rust/nested_dict.arrows")]
        public void Dictionary_batches_are_compressed_and_keep_their_id_and_delta_flag(string file)
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed(file));
            var compressed = Compress(messages, Parallel, 0.0, out _);
            int dictionaries = 0;
            for (int i = 0; i < messages.Count; i++)
            {
                if (messages[i].HeaderType != IpcMessageParser.HeaderDictionaryBatch || compressed[i].Metadata.Span.SequenceEqual(messages[i].Metadata))
                    continue;
                dictionaries++;
                byte[] before = messages[i].Metadata, after = compressed[i].Metadata.ToArray();
                IpcMessage b = IpcMessageParser.Parse(new FlatReader(before, 0, before.Length, 0));
                IpcMessage a = IpcMessageParser.Parse(new FlatReader(after, 0, after.Length, 0));
                Assert.True(a.Lz4);
                Assert.Equal(b.DictionaryId, a.DictionaryId);
                Assert.Equal(IsDelta(before, b), IsDelta(after, a));
            }
            Assert.True(dictionaries > 0);
        }

        [Fact]
        public void Schema_and_already_compressed_messages_are_left_as_they_are()
        {
            foreach (string file in new[] { "ipc/pyarrow/strings.arrows", "ipc/pyarrow/numeric_zstd.arrows", "ipc/java/tiny_batches.arrows" })
            {
                List<IpcMessages.Message> original = IpcMessages.Of(File.ReadAllBytes(Corpus.Committed(file)));
                Assert.Contains(original, m => m.HeaderType == IpcMessageParser.HeaderSchema);
                foreach (IpcMessages.Message m in original)
                {
                    Assert.False(IpcMessageCompressor.TryCompress(m.Metadata, m.Body, Parallel, 0.0, out var metadata, out var body));
                    Assert.True(metadata.IsEmpty && body.IsEmpty);
                }
            }
        }

        [Fact]
        public void Empty_batches_read_back_and_batches_with_no_body_are_left_as_they_are()
        {
            foreach (string file in new[] { "ipc/java/empty.arrows", "ipc/pyarrow/empty.arrows", "ipc/rust/empty.arrows" })
            {
                List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed(file));
                var compressed = Compress(messages, Parallel, 0.0, out _);
                for (int i = 0; i < messages.Count; i++)
                {
                    if (messages[i].Body.Length == 0)
                        Assert.True(compressed[i].Metadata.Span.SequenceEqual(messages[i].Metadata), $"{file} message {i}");
                }
                List<RecordBatch> expected = ArrowData.ReadAll(Corpus.Committed(file), new OfficialFactory());
                List<RecordBatch> actual = ArrowData.ReadAll(IpcMessages.Stream(compressed), fileFormat: false, new OfficialFactory());
                ArrowData.AssertSame(expected, actual);
            }
        }

        [Fact]
        public void A_large_table_compresses_in_parallel_and_reads_back()
        {
            RecordBatch[] batches = TestTables.Batches(3, 200_000, seed: 33);
            byte[] stream = WriteUncompressed(batches);
            List<IpcMessages.Message> messages = IpcMessages.Of(stream);
            var compressed = Compress(messages, IpcWrapped.Options(2), 0.0, out int count);
            Assert.Equal(3, count);
            long before = messages.Sum(m => (long)m.Body.Length), after = compressed.Sum(m => (long)m.Body.Length);
            Assert.True(after < before, $"{before} -> {after} bytes");
            // The random "noise" column goes raw behind -1; the other columns are frames.
            (int raw, int framed) = AssertEveryBufferDecodes(messages, compressed, useCli: ReferenceCli.Available);
            Assert.True(raw >= 3 && framed > raw, $"{raw} raw, {framed} framed");
            List<RecordBatch> actual = ArrowData.ReadAll(IpcMessages.Stream(compressed), fileFormat: false, new OfficialFactory());
            ArrowData.AssertSame(ArrowData.ReadAll(stream, fileFormat: false, new OfficialFactory()), actual);
        }

        [Fact]
        public void Allocates_the_two_outputs_and_a_small_constant()
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed("ipc/rust/wide.arrows"))
                .Concat(IpcMessages.Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows")))
                .Where(m => m.HeaderType == IpcMessageParser.HeaderRecordBatch && m.Body.Length > 0).ToList();
            Assert.NotEmpty(messages);
            // One thread: helpers would allocate on their own threads, out of this thread's count.
            Lz4FastOptions options = IpcWrapped.Options(1);
            foreach (IpcMessages.Message m in messages)
                IpcMessageCompressor.TryCompress(m.Metadata, m.Body, options, 0.0, out _, out _);
            foreach (IpcMessages.Message m in messages)
            {
                // The fewest bytes of three calls: what a call itself allocates happens on each of them, while a pooled
                // array or job that a test running beside this one holds at that moment is made anew once (CI saw
                // 7,496 bytes over the outputs once, and 920 before).
                long least = long.MaxValue, outputs = 0;
                for (int attempt = 0; attempt < 3; attempt++)
                {
                    long start = GC.GetAllocatedBytesForCurrentThread();
                    Assert.True(IpcMessageCompressor.TryCompress(m.Metadata, m.Body, options, 0.0, out var metadata, out var body));
                    least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - start);
                    outputs = metadata.Length + body.Length;
                }
                // A constant per call, not per buffer: 2 KB as DecodeBatch's test allows.
                Assert.True(least <= outputs + 2048, $"{least} bytes allocated for {outputs} bytes of output ({IpcMessages.Buffers(m.Metadata).Length} buffers)");
            }
        }

        [Fact]
        public void Malformed_metadata_or_a_short_body_is_InvalidDataException()
        {
            IpcMessages.Message m = IpcMessages.Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows"))
                .First(x => x.HeaderType == IpcMessageParser.HeaderRecordBatch && x.Body.Length > 0);
            Assert.Throws<InvalidDataException>(() => IpcMessageCompressor.TryCompress(m.Metadata.AsSpan(0, m.Metadata.Length / 2), m.Body, Parallel, 0, out _, out _));
            Assert.Throws<InvalidDataException>(() => IpcMessageCompressor.TryCompress(m.Metadata, m.Body.AsSpan(0, m.Body.Length - 1), Parallel, 0, out _, out _));
            Assert.Throws<InvalidDataException>(() => IpcMessageCompressor.TryCompress(ReadOnlySpan<byte>.Empty, m.Body, Parallel, 0, out _, out _));

            // Seeded byte mutations of the metadata: compressed, declined or refused, and what is compressed parses.
            var random = new Random(33);
            int refused = 0, done = 0;
            for (int n = 0; n < 3000; n++)
            {
                byte[] mutant = (byte[])m.Metadata.Clone();
                for (int k = random.Next(1, 4); k > 0; k--)
                    mutant[random.Next(mutant.Length)] = (byte)random.Next(256);
                try
                {
                    if (IpcMessageCompressor.TryCompress(mutant, m.Body, Parallel, 0, out var metadata, out var body))
                    {
                        done++;
                        byte[] result = metadata.ToArray();
                        IpcMessage parsed = IpcMessageParser.Parse(new FlatReader(result, 0, result.Length, 0));
                        Assert.True(parsed.Lz4 && parsed.BodyLength == body.Length);
                    }
                }
                catch (InvalidDataException)
                {
                    refused++;
                }
            }
            Assert.True(refused > 0 && done > 0, $"{refused} refused, {done} compressed");
        }

        [Fact]
        public void Buffer_outside_the_body_is_InvalidDataException()
        {
            IpcMessages.Message m = IpcMessages.Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows"))
                .First(x => x.HeaderType == IpcMessageParser.HeaderRecordBatch && x.Body.Length > 0);
            byte[] metadata = (byte[])m.Metadata.Clone();
            IpcMessage parsed = IpcMessageParser.Parse(new FlatReader(metadata, 0, metadata.Length, 0), buffers: true);
            int last = parsed.Buffers + ((parsed.BufferCount - 1) * IpcMessageParser.BufferStructSize);
            BinaryPrimitives.WriteInt64LittleEndian(metadata.AsSpan(last), m.Body.Length - 1);
            BinaryPrimitives.WriteInt64LittleEndian(metadata.AsSpan(last + 8), 16);
            var e = Assert.Throws<InvalidDataException>(() => IpcMessageCompressor.TryCompress(metadata, m.Body, Parallel, 0, out _, out _));
            Assert.Contains("lies outside", e.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void TryEncodeBatch_writes_the_frames_TryEncode_writes()
        {
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed("ipc/java/strings.arrows"));
            IpcMessages.Message m = messages.Where(x => x.HeaderType == IpcMessageParser.HeaderRecordBatch).OrderByDescending(x => x.Body.Length).First();
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2, 1));
            var items = new List<Lz4FrameBatchItem>();
            int slot = 0;
            foreach ((long offset, long length) in IpcMessages.Buffers(m.Metadata))
            {
                int room = (int)Lz4FrameEncoder.GetMaxEncodedLength((int)length, options);
                items.Add(new Lz4FrameBatchItem((int)offset, (int)length, slot, room));
                slot += room;
            }
            byte[] destination = new byte[slot];
            int[] written = new int[items.Count];
            Assert.True(Lz4FrameEncoder.TryEncodeBatch(m.Body, destination, items.ToArray(), written, options));
            for (int i = 0; i < items.Count; i++)
            {
                byte[] alone = new byte[items[i].DestinationLength];
                Assert.True(Lz4FrameEncoder.TryEncode(m.Body.AsSpan(items[i].SourceOffset, items[i].SourceLength), alone, out int length));
                Assert.Equal(alone.AsSpan(0, length).ToArray(), destination.AsSpan(items[i].DestinationOffset, written[i]).ToArray());
            }
            // Too little room for the largest frame: false, nothing written outside the ranges.
            int largest = Enumerable.Range(0, items.Count).OrderByDescending(i => written[i]).First();
            Lz4FrameBatchItem[] tight = items.ToArray();
            tight[largest] = new Lz4FrameBatchItem(tight[largest].SourceOffset, tight[largest].SourceLength, tight[largest].DestinationOffset, written[largest] - 1);
            Assert.False(Lz4FrameEncoder.TryEncodeBatch(m.Body, destination, tight, written, options));
            Assert.Equal(0, written[largest]);
        }

        private static List<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> Compress(List<IpcMessages.Message> messages, Lz4FastOptions options, double minSpaceSavings, out int count)
        {
            var result = new List<(ReadOnlyMemory<byte>, ReadOnlyMemory<byte>)>();
            count = 0;
            foreach (IpcMessages.Message m in messages)
            {
                if (IpcMessageCompressor.TryCompress(m.Metadata, m.Body, options, minSpaceSavings, out var metadata, out var body))
                {
                    count++;
                    result.Add((metadata, body));
                }
                else
                {
                    result.Add((m.Metadata, m.Body));
                }
            }
            return result;
        }

        private static bool IsCompressed(byte[] metadata) => IpcMessageParser.Parse(new FlatReader(metadata, 0, metadata.Length, 0)).Compressed;

        private static int IsDelta(byte[] metadata, IpcMessage message) =>
            new FlatReader(metadata, 0, metadata.Length, 0).UInt8(message.Dictionary, IpcMessageParser.DictionaryBatchIsDelta, 0, "isDelta");

        private static int FrameLength(ReadOnlySpan<byte> content, Lz4FastOptions options)
        {
            Lz4FrameEncoderOptions encoder = options.EncoderOptions(null);
            byte[] frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(content.Length, encoder)];
            Assert.True(Lz4FrameEncoder.TryEncode(content, frame, out int length, encoder));
            return length;
        }

        private static byte[] WriteUncompressed(IReadOnlyList<RecordBatch> batches)
        {
            using var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.ToArray();
        }
    }
}
