using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// End to end: ArrowStreamReader reads whole IPC streams, from memory and through a stream that returns
    /// 1-16 KiB per Read, with the official codec factory and with ArrowLz4Fast's. Every batch is disposed, as a
    /// consumer that processes and drops batches would. Allocator "native" is Arrow's default (malloc and zero-fill per
    /// buffer, every buffer reported to GC.AddMemoryPressure, so reads run induced gen-2 collections); "arraypool" a
    /// plain ArrayPool allocator; "slab" the package's SlabMemoryAllocator. One allocator instance serves every
    /// iteration, so the numbers are the steady state of a process that keeps reading.
    /// </summary>
    [MemoryDiagnoser]
    [GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
    [CategoriesColumn]
    public class ReplayBenchmarks
    {
        private readonly ICompressionCodecFactory _official = new CompressionCodecFactory();
        private readonly ICompressionCodecFactory _fast = new Lz4FastCodecFactory();
        private IReadOnlyList<(string Name, byte[] Bytes)> _streams = null!;
        private ChunkedReadStream[] _chunked = null!;

        [ParamsSource(nameof(ProducerNames))]
        public string Producer { get; set; } = ProducerStreams.Pyarrow;

        public static string[] ProducerNames => ProducerStreams.WithSharedNumeric();

        [ParamsSource(nameof(AllocatorNames))]
        public string Allocator { get; set; } = Allocators.Native;

        public static string[] AllocatorNames => Allocators.All;

        private MemoryAllocator _allocator = null!;

        [GlobalSetup]
        public void Setup()
        {
            _streams = ProducerStreams.Load(Producer);
            _allocator = Allocators.Create(Allocator);
            _chunked = new ChunkedReadStream[_streams.Count];
            for (int i = 0; i < _streams.Count; i++)
                _chunked[i] = new ChunkedReadStream(_streams[i].Bytes);
        }

        [Benchmark(Baseline = true), BenchmarkCategory("memory")]
        public long Memory_Official() => ReadAllFromMemory(_official);

        [Benchmark, BenchmarkCategory("memory")]
        public long Memory_ArrowLz4Fast() => ReadAllFromMemory(_fast);

        [Benchmark(Baseline = true), BenchmarkCategory("chunked")]
        public long Chunked_Official() => ReadAllChunked(_official);

        [Benchmark, BenchmarkCategory("chunked")]
        public long Chunked_ArrowLz4Fast() => ReadAllChunked(_fast);

        private long ReadAllFromMemory(ICompressionCodecFactory factory)
        {
            long rows = 0;
            foreach ((string _, byte[] bytes) in _streams)
                rows += ReadAll(new MemoryStream(bytes, writable: false), factory, _allocator);
            return rows;
        }

        private long ReadAllChunked(ICompressionCodecFactory factory)
        {
            long rows = 0;
            foreach (ChunkedReadStream stream in _chunked)
            {
                stream.Rewind();
                rows += ReadAll(stream, factory, _allocator);
            }
            return rows;
        }

        internal static long ReadAll(Stream stream, ICompressionCodecFactory factory, MemoryAllocator allocator, bool fileFormat = false)
        {
            long rows = 0;
            using ArrowStreamReader reader = fileFormat
                ? new ArrowFileReader(stream, allocator, factory, leaveOpen: true)
                : new ArrowStreamReader(stream, allocator, factory, leaveOpen: true);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }
    }
}
