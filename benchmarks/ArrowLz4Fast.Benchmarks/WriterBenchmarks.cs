using System;
using System.Collections.Generic;
using System.Linq;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Writing the synthetic order-lines table with ArrowStreamWriter: the official LZ4 codec (compresses into a
    /// MemoryStream, then copies) against ArrowLz4Fast's default (compresses in place through ITryCompressionCodec).
    /// The output column gives the stream size each produces.
    /// </summary>
    [MemoryDiagnoser]
    [Config(typeof(OutputSizeConfig))]
    public class WriterBenchmarks
    {
        private IReadOnlyList<RecordBatch> _batches = null!;
        private MemoryStream _output = null!;
        private MemoryAllocator _allocator = null!;

        /// <summary>The writer's buffer allocator: Arrow's default native one, a plain ArrayPool one or the package's (see ReplayBenchmarks).</summary>
        [ParamsSource(nameof(AllocatorNames))]
        public string Allocator { get; set; } = Allocators.Native;

        public static string[] AllocatorNames => Allocators.All;

        [GlobalSetup]
        public void Setup()
        {
            _batches = SyntheticTable.Batches();
            _output = new MemoryStream(64 << 20);
            _allocator = Allocators.Create(Allocator);
        }

        [Benchmark(Baseline = true)]
        public long Official() => Write(new CompressionCodecFactory());

        [Benchmark]
        public long ArrowLz4Fast() => Write(new Lz4FastCodecFactory());

        private long Write(ICompressionCodecFactory factory)
        {
            _output.SetLength(0);
            SyntheticTable.WriteStream(_batches, factory, _output, allocator: _allocator);
            return _output.Length;
        }

        /// <summary>The stream the benchmark method writes, for the output column.</summary>
        public static byte[] Output(string method) => SyntheticTable.WriteStream(
            SyntheticTable.Batches(),
            method == nameof(Official) ? new CompressionCodecFactory() : new Lz4FastCodecFactory());
    }

    /// <summary>
    /// ArrowLz4Fast's codec at each frame block size, at codec level so the table's GC-free numbers are comparable:
    /// compressing every Arrow buffer of the synthetic table into a destination of the buffer's own length (what
    /// ArrowStreamWriter hands to ITryCompressionCodec), and decoding the result. The default block size is chosen
    /// from this table.
    /// </summary>
    [MemoryDiagnoser]
    [Config(typeof(OutputSizeConfig))]
    public class BlockSizeBenchmarks
    {
        private byte[][] _buffers = null!;
        private byte[][] _compressed = null!;
        private int[] _compressedLengths = null!;
        private byte[][] _decoded = null!;
        private Lz4FastCodec _codec = null!;

        [Params(64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024)]
        public int BlockSize { get; set; }

        [GlobalSetup]
        public void Setup()
        {
            _buffers = TableBuffers.Value;
            _codec = new Lz4FastCodec(new Lz4FastOptions { BlockSize = BlockSize });
            _compressed = System.Array.ConvertAll(_buffers, b => new byte[b.Length]);
            _compressedLengths = new int[_buffers.Length];
            _decoded = System.Array.ConvertAll(_buffers, b => new byte[b.Length]);
            Compress();
        }

        [Benchmark]
        public long Compress()
        {
            long total = 0;
            for (int i = 0; i < _buffers.Length; i++)
            {
                // A buffer that does not shrink is stored raw by Arrow; it is not decoded below either.
                _compressedLengths[i] = _codec.TryCompress(_buffers[i], _compressed[i], out int written) ? written : -1;
                total += written;
            }
            return total;
        }

        [Benchmark]
        public long Decompress()
        {
            long total = 0;
            for (int i = 0; i < _buffers.Length; i++)
            {
                if (_compressedLengths[i] >= 0)
                    total += _codec.Decompress(_compressed[i].AsMemory(0, _compressedLengths[i]), _decoded[i]);
            }
            return total;
        }

        /// <summary>The Arrow buffers of the synthetic table, exactly as the reader reconstructs them.</summary>
        internal static readonly Lazy<byte[][]> TableBuffers = new(() =>
        {
            CodecInputs inputs = CodecInputs.Capture(new[] { SyntheticTable.WriteStream(SyntheticTable.Batches(), new CompressionCodecFactory()) });
            using ICompressionCodec official = new CompressionCodecFactory().CreateCodec(CompressionCodecType.Lz4Frame);
            for (int i = 0; i < inputs.Frames.Length; i++)
                official.Decompress(inputs.Frames[i], inputs.Destinations[i]);
            return inputs.Destinations.Where(d => d.Length > 0).ToArray();
        });

        /// <summary>
        /// <paramref name="length"/> bytes of the table's content (its buffers one after another, repeated as needed):
        /// the one buffer the parallel benchmarks and probes decode and encode.
        /// </summary>
        internal static byte[] TableContent(int length)
        {
            byte[][] table = TableBuffers.Value;
            var buffer = new byte[length];
            for (int at = 0, i = 0; at < length; i++)
            {
                byte[] source = table[i % table.Length];
                int n = Math.Min(source.Length, length - at);
                source.AsSpan(0, n).CopyTo(buffer.AsSpan(at));
                at += n;
            }
            return buffer;
        }

        /// <summary>Bytes the table's buffers take in the body at this block size: frames plus the raw-stored ones.</summary>
        public static long Output(int blockSize)
        {
            var codec = new Lz4FastCodec(new Lz4FastOptions { BlockSize = blockSize });
            long total = 0;
            foreach (byte[] buffer in TableBuffers.Value)
            {
                var destination = new byte[buffer.Length];
                total += 8 + (codec.TryCompress(buffer, destination, out int written) ? written : buffer.Length);
            }
            return total;
        }
    }
}
