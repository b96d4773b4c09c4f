#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Issue #34: hostile Schema messages. Arrow .NET's reader allocates an array of a field's children count before its
    /// own bounds checks fail (docs/correctness.md, the upstream report); the wrapper verifies every message first
    /// (<see cref="IpcMessageVerifier"/>) and refuses them at their offset.
    /// </summary>
    public class IpcSchemaVerifierTests
    {
        // The stray children count of the reproducer: 4 Mi entries, an array of 32 MiB on a 64-bit process. A hostile
        // stream can write up to 2^31 - 1 (16 GiB); the test keeps its own cost small.
        private const int StrayChildren = 1 << 22;

        private readonly ITestOutputHelper _output;

        public IpcSchemaVerifierTests(ITestOutputHelper output) => _output = output;

        /// <summary>
        /// The reproducer of the upstream report: one field's (empty) children vector given a count of 4 Mi in a real
        /// stream. Arrow's reader with the codec, over an exactly sized array, allocates the Field array of that count
        /// (MessageSerializer.FieldFromFlatbuffer) and only then fails in the flatbuffer accessors' bounds check.
        /// </summary>
        [Fact]
        public void Arrow_reader_allocates_a_stray_children_count_before_failing()
        {
            byte[] bytes = StrayChildrenMutant(out _, out int metadataLength);

            long before = GC.GetAllocatedBytesForCurrentThread();
            Exception? e = Record.Exception(() => ArrowData.ReadAll(bytes, fileFormat: false, new Lz4FastCodecFactory(new OfficialFactory())));
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            _output.WriteLine($"{metadataLength}-byte schema metadata: {allocated:N0} bytes allocated; {e?.GetType().Name}: {e?.Message}");
            _output.WriteLine(e?.StackTrace);

            Assert.NotNull(e);
            Assert.IsNotType<InvalidDataException>(e);
            Assert.Contains("FieldFromFlatbuffer", e!.StackTrace, StringComparison.Ordinal);
            // The accessors' bounds check (Google.FlatBuffers.ByteBuffer.AssertOffsetAndLength) throws this; its frame is
            // not asserted, since the JIT may inline it into the accessor (a CI build's trace had no ByteBuffer frame).
            Assert.IsType<ArgumentOutOfRangeException>(e);
            Assert.True(allocated >= (long)StrayChildren * IntPtr.Size, $"Arrow allocated {allocated} bytes for a {metadataLength}-byte schema");
        }

        /// <summary>
        /// The same mutant through the wrapper: InvalidDataException at the vector's count, before Arrow reads the schema,
        /// on the first read and on every later one. Each read allocates a small constant on its thread, and retains
        /// nothing: every buffer it took from its own allocator is back, and the allocator holds no more after 50 reads
        /// than after the first. (The process-wide heap is not a measure here: other tests run beside this one.)
        /// </summary>
        [Fact]
        public void The_wrapper_refuses_the_mutant_at_its_offset_on_every_read_without_growing()
        {
            byte[] bytes = StrayChildrenMutant(out int countAt, out _);
            var allocator = new Memory.SlabMemoryAllocator();
            long retainedAfterFirst = 0;
            for (int i = 0; i < 50; i++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                var e = Assert.Throws<InvalidDataException>(() => IpcWrapped.ReadAll(bytes, IpcWrapped.Options(2), allocator, null));
                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                Assert.Contains("Field.children", e.Message, StringComparison.Ordinal);
                Assert.Equal(countAt, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
                // The stream's buffers come from the pools; the rest is the reader, the exception and its message.
                Assert.True(allocated < 256 << 10, $"read {i}: {allocated} bytes allocated");
                Assert.Equal(0, allocator.BytesInUse);
                if (i == 0)
                    retainedAfterFirst = allocator.BytesRetained;
            }
            _output.WriteLine($"allocator retains {retainedAfterFirst:N0} bytes after the first read, {allocator.BytesRetained:N0} after 50");
            Assert.True(allocator.BytesRetained <= retainedAfterFirst, $"the allocator grew from {retainedAfterFirst} to {allocator.BytesRetained} bytes over 49 refused reads");
        }

        public static IEnumerable<object[]> SchemaStreams() =>
            new[] { "ipc/java/nested_dict.arrows", "ipc/pyarrow/nested_dict.arrows", "ipc/rust/nested_dict.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/strings.arrows", "ipc/rust/tiny_batches.arrows" }
                .Select(f => new object[] { f });

        /// <summary>
        /// Every vtable, field offset, uoffset, vector length and union type of the Schema message of real streams, moved
        /// out of its table or the metadata one at a time (a union type made unknown), is InvalidDataException at its
        /// offset; the unmodified stream reads as the codec path reads it.
        /// </summary>
        [Theory]
        [MemberData(nameof(SchemaStreams))]
        public void Every_schema_site_moved_out_is_refused_at_its_offset(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            List<RecordBatch> official = ArrowData.ReadAll(original, fileFormat: false, new Lz4FastCodecFactory(new OfficialFactory()));
            List<RecordBatch> ours = IpcWrapped.ReadAll(original, IpcWrapped.Options(2), Memory.SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new OfficialFactory()));
            ArrowData.AssertSame(official, ours);
            ArrowData.DisposeAll(ours);

            IpcMutator.Message schema = IpcMutator.Messages(original)[0];
            List<SchemaSites.Site> sites = SchemaSites.Of(original, schema);
            var failures = new List<string>();
            foreach (SchemaSites.Site site in sites)
            {
                byte[] bytes = (byte[])original.Clone();
                site.Value.CopyTo(bytes, site.Offset);
                Exception? e = Record.Exception(() => ReadFirstBytes(bytes));
                if (e is not InvalidDataException || e.InnerException is not Lz4FrameException inner || inner.Offset != site.Offset)
                    failures.Add($"{site.Kind} at {site.Offset}: {e?.GetType().Name} {e?.Message}");
            }
            _output.WriteLine($"{file}: {sites.Count} sites in the {schema.MetadataLength}-byte schema message, {sites.GroupBy(s => s.Kind.Split(' ')[0]).Count()} kinds");
            Assert.True(sites.Count > 20, $"only {sites.Count} sites");
            Assert.Contains(sites, s => s.Kind == "union type");
            Assert.Empty(failures);
        }

        /// <summary>Shared tables multiply what a reader walks: a children vector listing one field 64 times, nested, is refused by the work bound.</summary>
        [Fact]
        public void Shared_children_past_the_work_bound_are_refused()
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            IpcMutator.Message schema = IpcMutator.Messages(original)[0];
            // Unchanged, the schema costs less than one unit per byte.
            IpcMessageVerifier.Verify(new FlatReader(original, schema.Metadata, schema.MetadataLength, schema.Metadata));
            byte[] bytes = SharedFieldBomb(out int length);
            var e = Assert.Throws<InvalidDataException>(() => IpcMessageVerifier.Verify(new FlatReader(bytes, 0, length, 0)));
            Assert.Contains("units per metadata byte", e.Message, StringComparison.Ordinal);
        }

        // A Schema message of one field whose children vector lists a single child field 64 times, that child's children
        // the same, 4 levels deep: 64^4 fields for Arrow's reader from a few hundred bytes.
        private static byte[] SharedFieldBomb(out int length)
        {
            var b = new MiniFlatBuilder();
            int leaf = b.Table(new[] { (2, MiniFlatBuilder.Byte(5)) }); // Field { type_type: Utf8 }
            int field = leaf;
            for (int level = 0; level < 4; level++)
                field = b.Table(new[] { (2, MiniFlatBuilder.Byte(13)), (5, b.Vector(Enumerable.Repeat(field, 64).ToArray())) });
            int schema = b.Table(new[] { (1, b.Vector(new[] { field })) });
            int message = b.Table(new[] { (1, MiniFlatBuilder.Byte(IpcMessageParser.HeaderSchema)), (2, MiniFlatBuilder.Offset(schema)) });
            return b.Finish(message, out length);
        }

        /// <summary>A real stream with the first empty children vector of its schema given <see cref="StrayChildren"/> entries.</summary>
        private static byte[] StrayChildrenMutant(out int countAt, out int metadataLength)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            IpcMutator.Message schema = IpcMutator.Messages(bytes)[0];
            var reader = new FlatReader(bytes, schema.Metadata, schema.MetadataLength, schema.Metadata);
            FlatTable root = reader.Root("Message");
            FlatTable schemaTable = reader.SubTable(root, IpcMessageParser.MessageHeader, "Schema");
            (int fields, int count) = reader.Vector(schemaTable, 1, 4, "Schema.fields");
            for (int i = 0; i < count; i++)
            {
                FlatTable field = reader.TableAt(fields + (4 * i), "Field");
                (int children, int childCount) = reader.Vector(field, 5, 4, "Field.children");
                if (children > 0 && childCount == 0)
                {
                    countAt = schema.Metadata + children - 4;
                    metadataLength = schema.MetadataLength;
                    BitConverter.GetBytes(StrayChildren).CopyTo(bytes, countAt);
                    return bytes;
                }
            }
            throw new InvalidOperationException("no field with an empty children vector");
        }

        /// <summary>Reads the wrapper far enough to pass the first message's metadata (the schema).</summary>
        private static void ReadFirstBytes(byte[] bytes)
        {
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(1));
            _ = stream.Read(new byte[4096], 0, 4096);
        }
    }
}
#endif
