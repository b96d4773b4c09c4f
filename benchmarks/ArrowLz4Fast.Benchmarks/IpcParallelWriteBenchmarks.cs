using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Writing record batches as LZ4-compressed IPC, as a user would: <c>ArrowStreamWriter</c> (or
    /// <c>ArrowFileWriter</c>) into a reused <see cref="MemoryStream"/>, through the codec path (the package's codec in
    /// <c>IpcOptions</c>) or through <see cref="IpcCompressingStream"/> (no codec in the writer), at all cores and at one.
    /// The ceiling is measured in the same run in two parts: Arrow's uncompressed write of the same batches into
    /// memory, and every buffer of each batch encoded as an LZ4 frame by two threads, largest first, with nothing else
    /// (the ceiling is their sum). The shapes: batches of 8 KiB, 64 KiB, 512 KiB and 8 MiB buffers, and the committed
    /// corpus's 1,000 tiny batches.
    /// </summary>
    [MemoryDiagnoser]
    public class IpcParallelWriteBenchmarks
    {
        private List<RecordBatch> _batches = null!;
        private MemoryStream _output = null!;
        private byte[][] _bodies = null!;
        private Lz4FrameBatchItem[][] _items = null!;
        private byte[][] _frames = null!;
        private int[] _written = null!;
        private Lz4FastOptions _allCores = null!;
        private Lz4FastOptions _oneCore = null!;

        /// <summary>Rows per batch x columns (buffer size), or the committed tiny-batches stream.</summary>
        [Params("1024x200 (8 KiB)", "8192x16 (64 KiB)", "65536x16 (512 KiB)", "1Mx4 (8 MiB)", "tiny batches")]
        public string Shape { get; set; } = "8192x16 (64 KiB)";

        [GlobalSetup]
        public void Setup()
        {
            _batches = Shape switch
            {
                "1024x200 (8 KiB)" => WriteShapes.Batches(batches: 20, rows: 1024, columns: 200),
                "8192x16 (64 KiB)" => WriteShapes.Batches(batches: 32, rows: 8192, columns: 16),
                "65536x16 (512 KiB)" => WriteShapes.Batches(batches: 4, rows: 65536, columns: 16),
                "1Mx4 (8 MiB)" => WriteShapes.Batches(batches: 1, rows: 1 << 20, columns: 4),
                _ => WriteShapes.Corpus("ipc/java/tiny_batches.arrows"),
            };
            _output = new MemoryStream(256 << 20);
            _allCores = new Lz4FastOptions { MaxDegreeOfParallelism = -1 };
            _oneCore = new Lz4FastOptions { MaxDegreeOfParallelism = 1 };
            (_bodies, _items) = WriteShapes.Bodies(_batches);
            _frames = WriteShapes.Frames(_bodies, _items, out _written);
            VcpuSpeed.Log("setup");
        }

        /// <summary>
        /// Each case runs for seconds in one episode of the VM's vCPU speeds: the log says which (docs/benchmarks.md). The
        /// interleaved case's medians are printed here (<c>// interleaved write: …</c>).
        /// </summary>
        [GlobalCleanup]
        public void Cleanup()
        {
            VcpuSpeed.Log("cleanup");
            if (!_interleaved.Enough)
                return;
            InterleavedTimes m = _interleaved;
            Console.WriteLine(FormattableString.Invariant(
                $"// interleaved write: {Shape}: {m.Operations} operations; medians ms: codec {m.MedianMilliseconds(0):F3}, stream {m.MedianMilliseconds(1):F3}, file codec {m.MedianMilliseconds(2):F3}, file stream {m.MedianMilliseconds(3):F3}, uncompressed {m.MedianMilliseconds(4):F3}, compress only {m.MedianMilliseconds(5):F3}, codec one core {m.MedianMilliseconds(6):F3}, stream one core {m.MedianMilliseconds(7):F3}; per operation: stream gain {m.MedianRatio(0, 1):F3}, file gain {m.MedianRatio(2, 3):F3}, ceiling share {m.Median(t => (double)(t[4] + t[5]) / t[1]):F3} (file {m.Median(t => (double)(t[4] + t[5]) / t[3]):F3}), one core {m.MedianRatio(6, 7):F3}"));
        }

        /// <summary>
        /// Every other case, one after the other in each operation (in a rotating order), each timed: the VM's vCPUs
        /// run at unequal speeds in episodes of seconds to tens of seconds, which a case of its own may spend whole in
        /// or out of, so the ratios of separate cases carry that; these share each moment. The cleanup prints the
        /// medians of the second half of the operations and the per-operation ratios.
        /// </summary>
        [Benchmark(Description = "interleaved: every case in turn")]
        public long Interleaved() => _interleaved.Run(_paths ??= new Func<long>[]
        {
            CodecAllCores, StreamAllCores, FileCodecAllCores, FileStreamAllCores, UncompressedWrite, CompressOnlyTwoThreads, CodecOneCore, StreamOneCore,
        });

        private readonly InterleavedTimes _interleaved = new InterleavedTimes(8, kept: 4096);
        private Func<long>[]? _paths;

        [Benchmark(Baseline = true, Description = "codec path, all cores")]
        public long CodecAllCores() => WriteWithCodec(_allCores, file: false);

        [Benchmark(Description = "codec path, one core")]
        public long CodecOneCore() => WriteWithCodec(_oneCore, file: false);

        [Benchmark(Description = "IpcCompressingStream, all cores")]
        public long StreamAllCores() => WriteThroughStream(_allCores, file: false);

        [Benchmark(Description = "IpcCompressingStream, one core")]
        public long StreamOneCore() => WriteThroughStream(_oneCore, file: false);

        [Benchmark(Description = "file: codec path, all cores")]
        public long FileCodecAllCores() => WriteWithCodec(_allCores, file: true);

        [Benchmark(Description = "file: IpcCompressingStream, all cores")]
        public long FileStreamAllCores() => WriteThroughStream(_allCores, file: true);

        [Benchmark(Description = "ceiling part 1: uncompressed write")]
        public long UncompressedWrite()
        {
            _output.SetLength(0);
            using (var writer = new ArrowStreamWriter(_output, _batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in _batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return _output.Length;
        }

        [Benchmark(Description = "ceiling part 2: compress only, two threads")]
        public long CompressOnlyTwoThreads()
        {
            var options = new Lz4FrameEncoderOptions(parallelism: new Lz4Parallelism(2, minimumLength: 1));
            long total = 0;
            for (int i = 0; i < _bodies.Length; i++)
            {
                Lz4FrameEncoder.TryEncodeBatch(_bodies[i], _frames[i], _items[i], _written, options);
                for (int k = 0; k < _items[i].Length; k++)
                    total += _written[k];
            }
            return total;
        }

        private long WriteWithCodec(Lz4FastOptions options, bool file)
        {
            _output.SetLength(0);
            var ipc = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory(options) };
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(_output, _batches[0].Schema, leaveOpen: true, ipc)
                : new ArrowStreamWriter(_output, _batches[0].Schema, leaveOpen: true, ipc))
            {
                foreach (RecordBatch batch in _batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return _output.Length;
        }

        private long WriteThroughStream(Lz4FastOptions options, bool file)
        {
            _output.SetLength(0);
            using (var compressing = new IpcCompressingStream(_output, options, leaveOpen: true))
            using (ArrowStreamWriter writer = file
                ? new ArrowFileWriter(compressing, _batches[0].Schema, leaveOpen: true)
                : new ArrowStreamWriter(compressing, _batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in _batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return _output.Length;
        }
    }

    /// <summary>The write benchmark's tables: numeric columns shaped like measurements and keys, and corpus streams.</summary>
    internal static class WriteShapes
    {
        /// <summary>Room for every batch's frames (as its items place them), and a length per item of the largest batch.</summary>
        public static byte[][] Frames(byte[][] bodies, Lz4FrameBatchItem[][] items, out int[] written)
        {
            var frames = new byte[bodies.Length][];
            int most = 1;
            for (int i = 0; i < bodies.Length; i++)
            {
                int room = 0;
                foreach (Lz4FrameBatchItem item in items[i])
                    room = Math.Max(room, item.DestinationOffset + item.DestinationLength);
                frames[i] = new byte[room];
                most = Math.Max(most, items[i].Length);
            }
            written = new int[most];
            return frames;
        }

        public static List<RecordBatch> Batches(int batches, int rows, int columns)
        {
            var random = new Random(42);
            var fields = new List<Field>();
            for (int c = 0; c < columns; c++)
                fields.Add(new Field($"c{c}", (c % 4) switch { 0 => Int64Type.Default, 1 => DoubleType.Default, 2 => Int64Type.Default, _ => Int64Type.Default }, nullable: false));
            var schema = new Schema(fields, null);
            var result = new List<RecordBatch>();
            long clock = 1_700_000_000_000;
            for (int b = 0; b < batches; b++)
            {
                var arrays = new List<IArrowArray>();
                for (int c = 0; c < columns; c++)
                {
                    switch (c % 4)
                    {
                        case 0:
                        {
                            // A key with a few hundred values.
                            var builder = new Int64Array.Builder().Reserve(rows);
                            for (int r = 0; r < rows; r++)
                                builder.Append(random.Next(500));
                            arrays.Add(builder.Build());
                            break;
                        }
                        case 1:
                        {
                            // A price with two decimals.
                            var builder = new DoubleArray.Builder().Reserve(rows);
                            for (int r = 0; r < rows; r++)
                                builder.Append(Math.Round(random.NextDouble() * 100, 2));
                            arrays.Add(builder.Build());
                            break;
                        }
                        case 2:
                        {
                            // A timestamp in milliseconds, increasing.
                            var builder = new Int64Array.Builder().Reserve(rows);
                            for (int r = 0; r < rows; r++)
                                builder.Append(clock += random.Next(20));
                            arrays.Add(builder.Build());
                            break;
                        }
                        default:
                        {
                            // A quantity, mostly small.
                            var builder = new Int64Array.Builder().Reserve(rows);
                            for (int r = 0; r < rows; r++)
                                builder.Append(random.Next(4) == 0 ? random.Next(100_000) : random.Next(10));
                            arrays.Add(builder.Build());
                            break;
                        }
                    }
                }
                result.Add(new RecordBatch(schema, arrays, rows));
            }
            return result;
        }

        public static List<RecordBatch> Corpus(string file)
        {
            using var reader = new ArrowStreamReader(File.OpenRead(CorpusLocator.File(file)), new Lz4FastCodecFactory());
            var result = new List<RecordBatch>();
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
                result.Add(batch);
            return result;
        }

        /// <summary>Each batch's buffers laid out one after the other (8-byte aligned) and one frame slot each, for the compress-only ceiling.</summary>
        public static (byte[][] Bodies, Lz4FrameBatchItem[][] Items) Bodies(List<RecordBatch> batches)
        {
            var bodies = new byte[batches.Count][];
            var items = new Lz4FrameBatchItem[batches.Count][];
            for (int b = 0; b < batches.Count; b++)
            {
                var buffers = new List<ReadOnlyMemory<byte>>();
                for (int c = 0; c < batches[b].ColumnCount; c++)
                    Collect(batches[b].Column(c).Data, buffers);
                var body = new MemoryStream();
                var list = new List<Lz4FrameBatchItem>();
                int slots = 0;
                foreach (ReadOnlyMemory<byte> buffer in buffers)
                {
                    if (buffer.Length == 0)
                        continue;
                    int offset = (int)body.Position;
                    body.Write(buffer.Span);
                    body.Position = (body.Position + 7) & ~7L;
                    body.SetLength(body.Position);
                    int room = (int)Lz4FrameEncoder.GetMaxEncodedLength(buffer.Length);
                    list.Add(new Lz4FrameBatchItem(offset, buffer.Length, slots, room));
                    slots += (room + 7) & ~7;
                }
                bodies[b] = body.ToArray();
                items[b] = list.ToArray();
            }
            return (bodies, items);
        }

        private static void Collect(ArrayData data, List<ReadOnlyMemory<byte>> buffers)
        {
            foreach (ArrowBuffer buffer in data.Buffers)
                buffers.Add(buffer.Memory);
            foreach (ArrayData child in data.Children ?? System.Array.Empty<ArrayData>())
                Collect(child, buffers);
            if (data.Dictionary is not null)
                Collect(data.Dictionary, buffers);
        }
    }
}
