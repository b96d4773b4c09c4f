using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
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

        [GlobalSetup]
        public void Setup()
        {
            _batches = SyntheticTable.Batches();
            _output = new MemoryStream(64 << 20);
        }

        [Benchmark(Baseline = true)]
        public long Official() => Write(new CompressionCodecFactory());

        [Benchmark]
        public long ArrowLz4Fast() => Write(new Lz4FastCodecFactory());

        private long Write(ICompressionCodecFactory factory)
        {
            _output.SetLength(0);
            SyntheticTable.WriteStream(_batches, factory, _output);
            return _output.Length;
        }

        /// <summary>The stream the benchmark method writes, for the output column.</summary>
        public static byte[] Output(string method) => SyntheticTable.WriteStream(
            SyntheticTable.Batches(),
            method == nameof(Official) ? new CompressionCodecFactory() : new Lz4FastCodecFactory());
    }

    /// <summary>
    /// ArrowLz4Fast's writer at each frame block size: write time, output size, and the time our reader takes to
    /// read the result back. The default block size is chosen from this table.
    /// </summary>
    [MemoryDiagnoser]
    [Config(typeof(OutputSizeConfig))]
    public class BlockSizeBenchmarks
    {
        private IReadOnlyList<RecordBatch> _batches = null!;
        private MemoryStream _output = null!;
        private byte[] _written = null!;
        private Lz4FastCodecFactory _factory = null!;

        [Params(64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024)]
        public int BlockSize { get; set; }

        [GlobalSetup]
        public void Setup()
        {
            _batches = SyntheticTable.Batches();
            _output = new MemoryStream(64 << 20);
            _factory = Factory(BlockSize);
            _written = SyntheticTable.WriteStream(_batches, _factory);
        }

        [Benchmark]
        public long Write()
        {
            _output.SetLength(0);
            SyntheticTable.WriteStream(_batches, _factory, _output);
            return _output.Length;
        }

        [Benchmark]
        public long Read() => ReplayBenchmarks.ReadAll(new MemoryStream(_written, writable: false), _factory);

        public static Lz4FastCodecFactory Factory(int blockSize) => new(new Lz4FastOptions { BlockSize = blockSize });

        public static byte[] Output(int blockSize) => SyntheticTable.WriteStream(SyntheticTable.Batches(), Factory(blockSize));
    }
}
