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
    /// rewritten as one batch of 500 and 2,000 rows.
    /// </summary>
    [MemoryDiagnoser]
    public class ShortStreamBenchmarks
    {
        private readonly Lz4FastCodecFactory _codec = new Lz4FastCodecFactory();
        private byte[] _bytes = null!;

        [Params("tiny, 1 batch", "strings, 500 rows", "strings, 2000 rows")]
        public string Stream { get; set; } = "tiny, 1 batch";

        [GlobalSetup]
        public void Setup()
        {
            _bytes = Stream switch
            {
                "tiny, 1 batch" => FirstMessages(ProducerStreams.LoadStream("pyarrow/tiny_batches"), 2),
                "strings, 500 rows" => StringRows(ProducerStreams.LoadStream("pyarrow/strings"), 500),
                "strings, 2000 rows" => StringRows(ProducerStreams.LoadStream("pyarrow/strings"), 2000),
                _ => throw new ArgumentOutOfRangeException(nameof(Stream), Stream, "unknown shape"),
            };
            if (Codec() != Wrapper())
                throw new InvalidOperationException($"{Stream}: the two paths read different row counts");
        }

        [Benchmark(Baseline = true, Description = "codec path")]
        public long Codec() => Read(new MemoryStream(_bytes, writable: false), _codec);

        [Benchmark(Description = "IpcDecompressingStream")]
        public long Wrapper() => Read(new IpcDecompressingStream(new MemoryStream(_bytes, writable: false)), null);

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
