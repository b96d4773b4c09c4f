#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Untrusted input through <see cref="IpcDecompressingStream"/>: seeded mutations of real streams' metadata and
    /// bodies, and the malformed-frame corpus inside IPC messages, give only InvalidDataException or
    /// NotSupportedException, never write outside the destination, and agree with the official reader when both succeed.
    /// </summary>
    public class IpcDecompressingStreamHostileTests
    {
        private readonly ITestOutputHelper _output;

        public IpcDecompressingStreamHostileTests(ITestOutputHelper output) => _output = output;

        public static IEnumerable<object[]> MutationCases() =>
            new[] { "ipc/pyarrow/nested_dict.arrows", "ipc/rust/strings.arrows", "ipc/java/nested_dict.arrows", "ipc/pyarrow/empty.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/nested_dict_minsavings.arrows", "ipc/rust/tiny_batches.arrows" }
                .SelectMany(f => Degrees.Select(d => new object[] { f, d }));

        // The netstandard2.0 suite reads the mutants on the parallel body path alone, half as many: that build's own code
        // (the input read through the array overloads, helpers queued through WaitCallback) runs on every read of it,
        // and the checks it meets are the net8.0 suite's, which runs the whole sample at both degrees.
#if NETSTANDARD_SUITE
        private static readonly int[] Degrees = { 2 };
        private const int SampleDivisor = 2;
#else
        private static readonly int[] Degrees = { 1, 2 };
        private const int SampleDivisor = 1;
#endif

        [Theory]
        [MemberData(nameof(MutationCases))]
        public void Mutated_metadata_and_bodies_give_only_invalid_data_and_no_stray_writes(string file, int degree)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            List<IpcMutator.Message> messages = IpcMutator.Messages(original);
            Assert.Contains(messages, m => m.Lz4);
            var random = new Random(file.Sum(c => c) * 31 + degree);
            var outcomes = new Dictionary<string, int>();
            // A sample: fuzz --ipc (a CI slice) runs 2,000 such mutants through the wrapper with a time and memory budget.
            int mutants = (file.Contains("tiny", StringComparison.Ordinal) || file.Contains("wide", StringComparison.Ordinal) ? 8 : 30) / SampleDivisor;
            for (int i = 0; i < mutants; i++)
            {
                byte[] bytes = IpcMutator.Mutate(original, messages, random, out string what);
                string outcome = HostileCheck.Run(bytes, IpcWrapped.Options(degree, 1), random, what);
                outcomes[outcome] = outcomes.GetValueOrDefault(outcome) + 1;
            }
            _output.WriteLine($"{file} degree {degree}: " + string.Join(", ", outcomes.OrderBy(o => o.Key).Select(o => $"{o.Key} {o.Value}")));
            Assert.True(outcomes.Keys.Any(k => k.StartsWith("rejected", StringComparison.Ordinal)), "no mutant was rejected: the mutations did not reach the wrapper");
        }

        public static IEnumerable<object[]> MalformedFrames() =>
            Corpus.DataFiles("malformed")
                .Where(f => Corpus.Sidecar(Corpus.Committed(f)).GetProperty("must_fail").GetBoolean())
                .Select(f => new object[] { f });

        /// <summary>Each frame of the malformed corpus that a correct decoder must reject, as the data buffer of an Arrow .NET batch.</summary>
        [Theory]
        [MemberData(nameof(MalformedFrames))]
        public void A_malformed_frame_in_a_batch_is_invalid_data_at_its_input_offset(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            if (frame.Length == 0)
                return; // An empty buffer has no frame to write: the empty input is the codec tests' case.
            JsonElement sidecar = Corpus.Sidecar(Corpus.Committed(file));
            // Longer than the frame: the writer stores a buffer raw when its "compressed" form is not smaller.
            int rows = Math.Max(4096, (frame.Length * 2) + 64);
            var values = new UInt8Array.Builder();
            for (int i = 0; i < rows; i++)
                values.Append((byte)(i * 7));
            var schema = new Schema.Builder().Field(f => f.Name("v").DataType(UInt8Type.Default).Nullable(false)).Build();
            var batch = new RecordBatch(schema, new IArrowArray[] { values.Build() }, rows);
            byte[] bytes = IpcWriter.Write(new[] { batch }, new FixedFrameFactory(frame), fileFormat: false);
            int frameAt = bytes.AsSpan().IndexOf(frame);
            Assert.True(frameAt > 0, $"the writer did not store the frame: {bytes.Length} bytes, frame {frame.Length}, {Convert.ToHexString(bytes.AsSpan(Math.Max(0, bytes.Length - 200)))}");

            foreach (int degree in new[] { 1, 2 })
            {
                Exception e = Record.Exception(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(degree, 1), new[] { 0 }))!;
                Assert.NotNull(e);
                if (e is NotSupportedException)
                    continue;
                var invalid = Assert.IsType<InvalidDataException>(e);
                var inner = Assert.IsType<Lz4FrameException>(invalid.InnerException);
                if (rows > 255L * frame.Length)
                {
                    // No frame this short decodes to the declared length: refused at its length prefix, before decoding.
                    Assert.Contains("more than its", invalid.Message, StringComparison.Ordinal);
                    Assert.Equal(frameAt - 8, inner.Offset);
                }
                else
                {
                    Assert.InRange(inner.Offset, frameAt, bytes.Length);
                }
            }
        }

        [Fact]
        public void Hand_made_defects_name_what_and_where()
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            List<IpcMutator.Message> messages = IpcMutator.Messages(original);
            IpcMutator.Message batch = messages.First(m => m.Lz4);

            // A continuation token followed by a negative metadata length.
            byte[] bytes = (byte[])original.Clone();
            BitConverter.GetBytes(-5).CopyTo(bytes, batch.Start + 4);
            AssertInvalidAt(bytes, batch.Start, "metadata length");

            // The stream ends inside the body.
            bytes = original.AsSpan(0, batch.Body + 10).ToArray();
            AssertInvalidAt(bytes, batch.Body + 10, "ends inside a message body");

            // The stream ends inside a length prefix.
            bytes = original.AsSpan(0, batch.Start + 2).ToArray();
            AssertInvalidAt(bytes, batch.Start + 2, "length prefix");
        }

        /// <summary>
        /// Arrow .NET reads a batch's nodes and buffers by index past the end of their vectors, so a batch that lists fewer
        /// than its schema needs would read other bytes through the rewritten metadata than through the original (found by
        /// fuzz --ipc, seed 7, mutants 375 and 2735): the wrapper refuses it. Real streams with the vector counts lowered by one.
        /// </summary>
        [Theory]
        [InlineData("ipc/java/nested_dict.arrows", 2)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", 2)]
        [InlineData("ipc/rust/strings.arrows", 2)]
        [InlineData("ipc/pyarrow/strings.arrows", 2)]
        [InlineData("ipc/java/nested_dict.arrows", 1)]
        [InlineData("ipc/java/nested_dict.arrows", 0)]
        public void A_batch_listing_fewer_nodes_or_buffers_than_its_schema_is_invalid_data(string file, int vector)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            // The unmodified stream reads: the check does not refuse real batches.
            IpcWrapped.Drain(original, IpcWrapped.Options(2, 1), new[] { 0 });

            IpcMutator.Message batch = IpcMutator.Messages(original).First(m => m.Lz4 && IsRecordBatch(original, m));
            byte[] bytes = WithCountsLowered(original, batch, vector);

            var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 }));
            Assert.Contains("but its schema needs", e.Message, StringComparison.Ordinal);
            Assert.Equal(batch.Metadata, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        /// <summary>
        /// The same for dictionary batches, whose layout is that of the dictionary's value type: every compressed
        /// dictionary batch of real streams (strings, lists of strings, structs), one at a time, with its counts lowered.
        /// </summary>
        [Theory]
        [InlineData("ipc/java/nested_dict.arrows", 2)]
        [InlineData("ipc/java/nested_dict.arrows", 1)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", 2)]
        [InlineData("ipc/pyarrow/nested_dict.arrows", 0)]
        [InlineData("ipc/rust/nested_dict.arrows", 2)]
        public void A_dictionary_batch_listing_fewer_nodes_or_buffers_than_its_values_need_is_invalid_data(string file, int vector)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            IpcWrapped.Drain(original, IpcWrapped.Options(2, 1), new[] { 0 });

            var dictionaries = IpcMutator.Messages(original).Where(m => m.Lz4 && HeaderType(original, m) == Ipc.IpcMessageParser.HeaderDictionaryBatch).ToList();
            Assert.NotEmpty(dictionaries);
            foreach (IpcMutator.Message dictionary in dictionaries)
            {
                byte[] bytes = WithCountsLowered(original, dictionary, vector);

                var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 }));
                Assert.Contains("the dictionary batch of id", e.Message, StringComparison.Ordinal);
                Assert.Contains("but its schema needs", e.Message, StringComparison.Ordinal);
                Assert.Equal(dictionary.Metadata, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            }
        }

        /// <summary>
        /// A field Arrow reads but the wrapper does not need, moved by its vtable entry past the end of its table, may lie
        /// over bytes the rewrite changes (a Buffer struct), and Arrow would then read another value through the rewritten
        /// metadata than through the original (fuzz --ipc, seed 31: RecordBatch.length over the buffers gave 2 rows for 10).
        /// The wrapper refuses such a field, at its vtable entry. (DictionaryBatch.isDelta is checked the same way; no
        /// producer of the corpus writes it, false being its default.)
        /// </summary>
        [Theory]
        [InlineData("ipc/java/tiny_batches.arrows", Ipc.IpcMessageParser.HeaderRecordBatch, "RecordBatch.length")]
        [InlineData("ipc/pyarrow/strings.arrows", Ipc.IpcMessageParser.HeaderRecordBatch, "RecordBatch.length")]
        [InlineData("ipc/pyarrow/nested_dict.arrows", Ipc.IpcMessageParser.HeaderDictionaryBatch, "DictionaryBatch.id")]
        [InlineData("ipc/java/nested_dict.arrows", Ipc.IpcMessageParser.HeaderDictionaryBatch, "DictionaryBatch.id")]
        [InlineData("ipc/rust/strings.arrows", 0, "Message.version")]
        public void A_field_arrow_reads_placed_outside_its_table_is_invalid_data(string file, int headerType, string field)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            IpcMutator.Message message = IpcMutator.Messages(original).First(m => m.Lz4 && (headerType == 0 || HeaderType(original, m) == headerType));
            Ipc.IpcMessage parsed = Ipc.IpcMessageParser.Parse(new Ipc.FlatReader(original, message.Metadata, message.MetadataLength, message.Metadata));
            (Ipc.FlatTable table, int index) = field switch
            {
                "Message.version" => (parsed.Root, Ipc.IpcMessageParser.MessageVersion),
                "RecordBatch.length" => (parsed.Batch, Ipc.IpcMessageParser.RecordBatchLength),
                _ => (parsed.Dictionary, Ipc.IpcMessageParser.DictionaryBatchId),
            };
            int entry = message.Metadata + table.VTable + 4 + (2 * index);
            Assert.True(4 + (2 * index) + 2 <= table.VTableSize, $"{field} has no vtable entry in {file}");
            byte[] bytes = (byte[])original.Clone();
            // Just past the table: inside the metadata, outside the table.
            BitConverter.GetBytes((ushort)table.TableSize).CopyTo(bytes, entry);

            var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 }));
            Assert.Contains(field, e.Message, StringComparison.Ordinal);
            Assert.Equal(entry, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        /// <summary>
        /// A buffer cannot decode to more than 255 bytes per byte of its LZ4 frame, so a larger declared length is refused
        /// before Arrow's reader allocates the body (a few hostile bytes could otherwise make it allocate up to the cap).
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/tiny_batches.arrows")]
        public void A_buffer_declaring_more_than_its_frame_can_decode_to_is_invalid_data(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            IpcMutator.Message message = IpcMutator.Messages(original).First(m => m.Lz4 && IsRecordBatch(original, m));
            Ipc.IpcMessage parsed = Ipc.IpcMessageParser.Parse(new Ipc.FlatReader(original, message.Metadata, message.MetadataLength, message.Metadata), buffers: true);
            for (int i = 0; i < parsed.BufferCount; i++)
            {
                int at = message.Metadata + parsed.Buffers + (i * Ipc.IpcMessageParser.BufferStructSize);
                long offset = BitConverter.ToInt64(original, at), length = BitConverter.ToInt64(original, at + 8);
                int prefix = message.Body + (int)offset;
                if (length <= 8 || BitConverter.ToInt64(original, prefix) == -1)
                    continue;
                long bound = 255 * (length - 8);
                byte[] bytes = (byte[])original.Clone();
                BitConverter.GetBytes(bound + 1).CopyTo(bytes, prefix);
                var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 }));
                Assert.Contains("more than its", e.Message, StringComparison.Ordinal);
                Assert.Equal(prefix, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);

                // At the bound itself the layout accepts it; the frame then fails to fill it, as any short frame does.
                BitConverter.GetBytes(bound).CopyTo(bytes, prefix);
                e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(2, 1), new[] { 0 }));
                Assert.DoesNotContain("more than its", e.Message, StringComparison.Ordinal);
                return;
            }
            Assert.Fail($"{file} has no compressed buffer in its first LZ4 record batch");
        }

        /// <summary>
        /// A record batch's BodyCompression codec set to a value the format does not define is invalid data at that byte:
        /// read as "not LZ4" it passed through to Arrow's reader, which threw NotImplementedException. (pyarrow writes the
        /// method, BUFFER, as absent, so only the codec is set here.)
        /// </summary>
        [Theory]
        [InlineData(2)]
        [InlineData(9)]
        public void A_body_compression_codec_the_format_does_not_define_is_invalid_data_at_its_byte(byte value)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows"));
            IpcMutator.Message message = IpcMutator.Messages(original).First(m => IsRecordBatch(original, m));
            var flat = new Ipc.FlatReader(original, message.Metadata, message.MetadataLength, message.Metadata);
            Ipc.IpcMessage parsed = Ipc.IpcMessageParser.Parse(flat);
            Ipc.FlatTable compression = flat.SubTable(parsed.Batch, Ipc.IpcMessageParser.RecordBatchCompression, "compression");
            int at = flat.Field(compression, Ipc.IpcMessageParser.CompressionCodec, 1, "codec");
            Assert.Equal(Ipc.IpcMessageParser.CodecZstd, original[message.Metadata + at]);
            byte[] bytes = (byte[])original.Clone();
            bytes[message.Metadata + at] = value;
            var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.ReadAll(bytes, IpcWrapped.Options(2), SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new OfficialFactory())));
            Assert.Contains($"BodyCompression.codec is {value}, which the format does not define", e.Message, StringComparison.Ordinal);
            Assert.Equal(message.Metadata + at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        private static bool IsRecordBatch(byte[] bytes, IpcMutator.Message message) => HeaderType(bytes, message) == Ipc.IpcMessageParser.HeaderRecordBatch;

        private static int HeaderType(byte[] bytes, IpcMutator.Message message) =>
            Ipc.IpcMessageParser.Parse(new Ipc.FlatReader(bytes, message.Metadata, message.MetadataLength, message.Metadata)).HeaderType;

        /// <summary>A copy of the stream with the message's buffer count (vector 2), node count (1) or both (0) lowered by one.</summary>
        private static byte[] WithCountsLowered(byte[] original, IpcMutator.Message message, int vector)
        {
            Ipc.IpcMessage parsed = Ipc.IpcMessageParser.Parse(new Ipc.FlatReader(original, message.Metadata, message.MetadataLength, message.Metadata));
            byte[] bytes = (byte[])original.Clone();
            if (vector != 1)
                Lower(bytes, message.Metadata + parsed.Buffers - 4);
            if (vector != 2)
                Lower(bytes, message.Metadata + parsed.Nodes - 4);
            return bytes;
        }

        private static void Lower(byte[] bytes, int countAt)
        {
            int count = BitConverter.ToInt32(bytes, countAt);
            Assert.True(count > 0);
            BitConverter.GetBytes(count - 1).CopyTo(bytes, countAt);
        }

        private static void AssertInvalidAt(byte[] bytes, long offset, string what)
        {
            var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(1), new[] { 0 }));
            Assert.Contains(what, e.Message, StringComparison.Ordinal);
            Assert.Equal(offset, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        private sealed class FixedFrameFactory : ICompressionCodecFactory
        {
            private readonly byte[] _frame;

            public FixedFrameFactory(byte[] frame) => _frame = frame;

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) => new FixedFrameCodec(_frame);

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) => new FixedFrameCodec(_frame);
        }

        private sealed class FixedFrameCodec : ICompressionCodec
        {
            private readonly byte[] _frame;

            public FixedFrameCodec(byte[] frame) => _frame = frame;

            public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination) => throw new NotSupportedException();

            public void Compress(ReadOnlyMemory<byte> source, Stream destination) => destination.Write(_frame);

            public void Dispose()
            {
            }
        }
    }

    /// <summary>One hostile input through the wrapper (drained into guarded destinations) and through Arrow's readers.</summary>
    internal static class HostileCheck
    {
        private static readonly int[] Lengths = { 1, 3, 8, 100, 4096, 1 << 20, 8 << 20 };

        public static string Run(byte[] bytes, Lz4FastOptions options, Random random, string what)
        {
            // 1. The wrapper alone, with reads of random sizes into destinations fenced by sentinels.
            string outcome = "accepted";
            var guards = new Dictionary<int, GuardedBuffer>();
            try
            {
                using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), options);
                while (true)
                {
                    int length = Lengths[random.Next(Lengths.Length)];
                    if (!guards.TryGetValue(length, out GuardedBuffer? guard))
                        guards[length] = guard = new GuardedBuffer(length);
                    int n;
                    try
                    {
                        n = stream.Read(guard.Span);
                    }
                    finally
                    {
                        guard.AssertGuardsIntact();
                    }
                    if (n == 0)
                        break;
                }
            }
            catch (InvalidDataException e)
            {
                Assert.True(e.InnerException is Lz4FrameException, $"{what}: an InvalidDataException without its Lz4FrameException: {e}");
                outcome = "rejected";
            }
            catch (NotSupportedException)
            {
                outcome = "rejected (not supported)";
            }
            catch (Exception e)
            {
                Assert.Fail($"{what}: the wrapper threw {e.GetType().Name}: {e}");
            }

            // 2. Arrow's reader over the wrapper against Arrow's reader with the package's codec over the input. (Corrupt
            // LZ4 data that still decodes is the frame decoder's business, checked against liblz4 elsewhere: K4os, in
            // the official codec, decodes some of it differently, e.g. a match reaching before the frame.)
            List<RecordBatch>? official = null, ours = null;
            Exception? officialError = null, ourError = null;
            try
            {
                official = ArrowData.ReadAll(bytes, fileFormat: false, new Lz4FastCodecFactory(new OfficialFactory()));
            }
            catch (Exception e)
            {
                officialError = e;
            }
            try
            {
                ours = IpcWrapped.ReadAll(bytes, options, SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new OfficialFactory()));
            }
            catch (Exception e)
            {
                ourError = e;
            }
            if (ours is not null && official is not null)
            {
                try
                {
                    ArrowData.AssertSame(official, ours);
                }
                catch (Exception e)
                {
                    throw new Xunit.Sdk.XunitException($"{what}: both readers read the input but differ: {e.Message}");
                }
                ArrowData.DisposeAll(ours);
            }
            else if (ourError is not null && ourError is not InvalidDataException && ourError is not NotSupportedException)
            {
                // Arrow itself fails on what the wrapper passed on; then it fails on the original too.
                Assert.True(officialError is not null, $"{what}: through the wrapper Arrow threw {ourError}, but the codec path read the input");
            }
            return outcome;
        }
    }
}
#endif
