using System;
using System.Buffers.Binary;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// The wrapper's fixed cost per stream: one-batch LZ4 streams of a few kilobytes, each read whole through
    /// <see cref="IpcDecompressingStream"/> against <see cref="ArrowStreamReader"/> with the codec factory, from a
    /// <see cref="MemoryStream"/>, one stream per operation, on the package's slab allocator. The shapes: the first batch
    /// of the corpus's pyarrow tiny_batches stream (cut after it, 600 bytes), and pyarrow's strings columns
    /// rewritten as one batch of 500 and 2,000 rows. <see cref="Schema"/> "new to the thread" reads
    /// <see cref="NewVersions"/> versions of the stream in turn, whose schemas differ in one byte of the first field's
    /// name, more than a thread keeps, so that every schema is walked; "cached" reads one version over and over.
    /// </summary>
    [MemoryDiagnoser]
    public class ShortStreamBenchmarks
    {
        private readonly Lz4FastCodecFactory _codec = new Lz4FastCodecFactory();
        private byte[][] _versions = null!;
        private int _next;

        [Params("tiny, 1 batch", "strings, 500 rows", "strings, 2000 rows")]
        public string Stream { get; set; } = "tiny, 1 batch";

        [Params("cached", "new to the thread")]
        public string Schema { get; set; } = "cached";

        [GlobalSetup]
        public void Setup()
        {
            byte[] bytes = Shape(Stream);
            _versions = Schema switch
            {
                "cached" => new[] { bytes },
                "new to the thread" => Versions(bytes, NewVersions),
                _ => throw new ArgumentOutOfRangeException(nameof(Schema), Schema, "unknown schema case"),
            };
            foreach (byte[] version in _versions)
            {
                if (Read(new MemoryStream(version, writable: false), _codec) != Read(new IpcDecompressingStream(new MemoryStream(version, writable: false)), null))
                    throw new InvalidOperationException($"{Stream}: the two paths read different row counts");
            }
        }

        [Benchmark(Baseline = true, Description = "codec path")]
        public long Codec() => Read(new MemoryStream(NextVersion(), writable: false), _codec);

        [Benchmark(Description = "IpcDecompressingStream")]
        public long Wrapper() => Read(new IpcDecompressingStream(new MemoryStream(NextVersion(), writable: false)), null);

        /// <summary>
        /// The codec path and the wrapper one after the other in each operation (<see cref="InterleavedTimes"/>); the
        /// cleanup prints their medians and the per-operation ratio as <c>// interleaved short stream: …</c>. With
        /// <see cref="NewVersions"/> versions, each path still meets a schema other than the ones it read last.
        /// </summary>
        [Benchmark(Description = "interleaved: codec path and IpcDecompressingStream in turn")]
        public long Interleaved() => _interleaved.Run(_paths ??= new Func<long>[] { Codec, Wrapper });

        private readonly InterleavedTimes _interleaved = new InterleavedTimes(2);
        private Func<long>[]? _paths;

        [GlobalCleanup]
        public void Cleanup()
        {
            if (_interleaved.Enough)
                Console.WriteLine(FormattableString.Invariant($"// interleaved short stream: {Stream}, schema {Schema}: {_interleaved.Operations} operations; medians codec {_interleaved.MedianMicroseconds(0):F3} us, wrapper {_interleaved.MedianMicroseconds(1):F3} us; per operation codec/wrapper {_interleaved.MedianRatio(0, 1):F3}"));
        }

        private byte[] NextVersion()
        {
            byte[] bytes = _versions[_next];
            _next = (_next + 1) % _versions.Length;
            return bytes;
        }

        /// <summary>Versions read in turn for a schema new to the thread: twice the schemas a thread keeps verified.</summary>
        public const int NewVersions = 8;

        /// <summary><paramref name="count"/> versions of the stream: itself, then copies whose first field's name starts with 'Z', 'Y', ... (see <see cref="WithFirstFieldRenamed"/>).</summary>
        public static byte[][] Versions(byte[] bytes, int count)
        {
            var versions = new byte[count][];
            versions[0] = bytes;
            for (int i = 1; i < count; i++)
                versions[i] = WithFirstFieldRenamed(bytes, (char)('Z' - i + 1));
            if (new System.Collections.Generic.HashSet<string>(System.Array.ConvertAll(versions, Convert.ToBase64String)).Count != count)
                throw new InvalidOperationException("two versions of the stream are the same bytes");
            return versions;
        }

        /// <summary>One of the <see cref="Stream"/> shapes' bytes.</summary>
        public static byte[] Shape(string stream) => stream switch
        {
            "tiny, 1 batch" => FirstMessages(ProducerStreams.LoadStream("pyarrow/tiny_batches"), 2),
            "strings, 500 rows" => StringRows(ProducerStreams.LoadStream("pyarrow/strings"), 500),
            "strings, 2000 rows" => StringRows(ProducerStreams.LoadStream("pyarrow/strings"), 2000),
            _ => throw new ArgumentOutOfRangeException(nameof(stream), stream, "unknown shape"),
        };

        /// <summary>
        /// A copy of the stream whose first field's name starts with <paramref name="letter"/> instead (or with the letter
        /// before it, when it starts with that letter already): the same length, the same batch, a schema message of other
        /// bytes. The name is found as a flatbuffer string (length, bytes, NUL) in the schema's metadata.
        /// </summary>
        public static byte[] WithFirstFieldRenamed(byte[] bytes, char letter = 'Z')
        {
            string name;
            using (var reader = new ArrowStreamReader(new MemoryStream(bytes, writable: false), new Lz4FastCodecFactory()))
                name = reader.Schema.FieldsList[0].Name;
            byte[] encoded = System.Text.Encoding.UTF8.GetBytes(name);
            byte[] pattern = new byte[4 + encoded.Length + 1];
            BinaryPrimitives.WriteInt32LittleEndian(pattern, encoded.Length);
            encoded.CopyTo(pattern, 4);
            int prefix = BinaryPrimitives.ReadInt32LittleEndian(bytes) == -1 ? 8 : 4;
            int length = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(prefix - 4));
            int at = bytes.AsSpan(prefix, length).IndexOf(pattern);
            if (encoded.Length == 0 || encoded[0] >= 0x80 || at < 0)
                throw new InvalidOperationException($"the first field's name '{name}' is not in the schema message");
            byte[] copy = (byte[])bytes.Clone();
            int first = prefix + at + 4;
            copy[first] = (byte)(copy[first] == (byte)letter ? letter - 1 : letter);
            return copy;
        }

        private static long Read(Stream stream, ICompressionCodecFactory? codec)
        {
            long rows = 0;
            using var reader = new ArrowStreamReader(stream, SlabMemoryAllocator.Shared, codec!, leaveOpen: false);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        /// <summary>The stream's first <paramref name="count"/> messages (schema, dictionaries, a batch) and an end marker.</summary>
        private static byte[] FirstMessages(byte[] bytes, int count)
        {
            int position = 0;
            for (int i = 0; i < count; i++)
            {
                int prefix = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(position)) == -1 ? 8 : 4;
                int length = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(position + prefix - 4));
                int metadata = position + prefix;
                position = metadata + length + checked((int)BodyLength(bytes.AsSpan(metadata, length)));
            }
            byte[] cut = new byte[position + 8];
            bytes.AsSpan(0, position).CopyTo(cut);
            BinaryPrimitives.WriteInt32LittleEndian(cut.AsSpan(position), -1);
            return cut;
        }

        /// <summary>Message.bodyLength (field 3, a long) from the flatbuffer, 0 when absent.</summary>
        private static long BodyLength(ReadOnlySpan<byte> message)
        {
            int table = BinaryPrimitives.ReadInt32LittleEndian(message);
            int vtable = table - BinaryPrimitives.ReadInt32LittleEndian(message.Slice(table));
            int vtableLength = BinaryPrimitives.ReadInt16LittleEndian(message.Slice(vtable));
            const int Field = 4 + (3 * 2);
            if (Field + 2 > vtableLength)
                return 0;
            int offset = BinaryPrimitives.ReadInt16LittleEndian(message.Slice(vtable + Field));
            return offset == 0 ? 0 : BinaryPrimitives.ReadInt64LittleEndian(message.Slice(table + offset));
        }

        /// <summary>The first <paramref name="rows"/> rows of the stream's first batch, written again as a one-batch LZ4 stream.</summary>
        private static byte[] StringRows(byte[] bytes, int rows)
        {
            using var reader = new ArrowStreamReader(new MemoryStream(bytes, writable: false), new Lz4FastCodecFactory());
            using RecordBatch first = reader.ReadNextRecordBatch()!;
            // Built again rather than sliced, so that the written buffers start at offset 0 as a producer's would.
            var columns = new IArrowArray[first.ColumnCount];
            for (int c = 0; c < columns.Length; c++)
            {
                var source = (StringArray)first.Column(c);
                var builder = new StringArray.Builder();
                for (int i = 0; i < rows; i++)
                {
                    if (source.IsNull(i))
                        builder.AppendNull();
                    else
                        builder.Append(source.GetString(i));
                }
                columns[c] = builder.Build();
            }
            using var slice = new RecordBatch(first.Schema, columns, rows);
            var output = new MemoryStream();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() };
            using (var writer = new ArrowStreamWriter(output, slice.Schema, leaveOpen: true, options))
            {
                writer.WriteRecordBatch(slice);
                writer.WriteEnd();
            }
            return output.ToArray();
        }
    }
}
