using System.Linq;
using System.IO;
using System.Threading.Tasks;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Two readers at once sharing one allocator: each operation reads the stream whole on two threads in parallel,
    /// with ArrowLz4Fast. Against one reader (StreamBenchmarks), the difference is what the allocators' shared state
    /// (locks, counters, free lists) costs under contention; "native" and "arraypool" are the process-wide
    /// allocators they always are.
    /// </summary>
    [MemoryDiagnoser]
    public class ConcurrentReadBenchmarks
    {
        private readonly ICompressionCodecFactory _fast = new Lz4FastCodecFactory();
        private readonly MemoryAllocator _native = Allocators.Create(Allocators.Native);
        private readonly MemoryAllocator _arrayPool = Allocators.Create(Allocators.ArrayPool);
        private readonly MemoryAllocator _slab = Allocators.Create(Allocators.Slab);
        private byte[] _bytes = null!;

        [ParamsSource(nameof(StreamNames))]
        public string Stream { get; set; } = "pyarrow/tiny_batches";

        private static readonly string[] Wanted = { "pyarrow/tiny_batches", "java/wide", "rust/strings", "pyarrow/numeric", "dotnet/orders" };

        /// <summary>Small, wide, string and synthetic streams, and pyarrow's numeric stream when ../shared/corpus is there.</summary>
        public static string[] StreamNames() =>
            Wanted.Where(name => System.Array.IndexOf(ProducerStreams.CorpusStreams(), name) >= 0)
                .ToArray();

        [GlobalSetup]
        public void Setup() => _bytes = ProducerStreams.LoadStream(Stream);

        [Benchmark(Baseline = true)]
        public long TwoReaders_Native() => TwoReaders(_native);

        [Benchmark]
        public long TwoReaders_ArrayPool() => TwoReaders(_arrayPool);

        [Benchmark]
        public long TwoReaders_Slab() => TwoReaders(_slab);

        private long TwoReaders(MemoryAllocator allocator)
        {
            long a = 0, b = 0;
            Parallel.Invoke(
                () => a = ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), _fast, allocator),
                () => b = ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), _fast, allocator));
            return a + b;
        }
    }
}
