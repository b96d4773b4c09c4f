using System.IO;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// The allocators compared stream by stream: ArrowStreamReader with ArrowLz4Fast reads one corpus stream whole
    /// (every LZ4 stream of every producer, the numeric and incompressible streams of ../shared/corpus, the synthetic
    /// order-lines table), from memory and 1-16 KiB chunked, with Arrow's default allocator ("Native", the baseline),
    /// a plain ArrayPool allocator and the package's SlabMemoryAllocator. Each allocator instance lives for the whole
    /// benchmark, so the numbers are the steady state; Gen0/1/2 are collections per 1000 reads. ReplayBenchmarks has
    /// the official codec alongside, per producer. Memory_SlabNoClear measures what the ClearBuffers = false opt-out
    /// saves (with ArrowLz4Fast only the message bodies are still zeroed: the codec overwrites decoded buffers whole).
    /// </summary>
    [MemoryDiagnoser]
    [GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
    [CategoriesColumn]
    public class StreamBenchmarks
    {
        private readonly ICompressionCodecFactory _fast = new Lz4FastCodecFactory();
        private readonly MemoryAllocator _native = Allocators.Create(Allocators.Native);
        private readonly MemoryAllocator _arrayPool = Allocators.Create(Allocators.ArrayPool);
        private readonly MemoryAllocator _slab = Allocators.Create(Allocators.Slab);
        private readonly MemoryAllocator _slabNoClear = Allocators.Create(Allocators.SlabNoClear);
        private byte[] _bytes = null!;
        private ChunkedReadStream _chunked = null!;

        [ParamsSource(nameof(StreamNames))]
        public string Stream { get; set; } = "pyarrow/wide";

        public static string[] StreamNames => ProducerStreams.CorpusStreams();

        [GlobalSetup]
        public void Setup()
        {
            _bytes = ProducerStreams.LoadStream(Stream);
            _chunked = new ChunkedReadStream(_bytes);
        }

        [Benchmark(Baseline = true), BenchmarkCategory("memory")]
        public long Memory_Native() => FromMemory(_native);

        [Benchmark, BenchmarkCategory("memory")]
        public long Memory_ArrayPool() => FromMemory(_arrayPool);

        [Benchmark, BenchmarkCategory("memory")]
        public long Memory_Slab() => FromMemory(_slab);

        [Benchmark, BenchmarkCategory("memory")]
        public long Memory_SlabNoClear() => FromMemory(_slabNoClear);

        [Benchmark(Baseline = true), BenchmarkCategory("chunked")]
        public long Chunked_Native() => Chunked(_native);

        [Benchmark, BenchmarkCategory("chunked")]
        public long Chunked_ArrayPool() => Chunked(_arrayPool);

        [Benchmark, BenchmarkCategory("chunked")]
        public long Chunked_Slab() => Chunked(_slab);

        private long FromMemory(MemoryAllocator allocator) =>
            ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), _fast, allocator);

        private long Chunked(MemoryAllocator allocator)
        {
            _chunked.Rewind();
            return ReplayBenchmarks.ReadAll(_chunked, _fast, allocator);
        }
    }
}
