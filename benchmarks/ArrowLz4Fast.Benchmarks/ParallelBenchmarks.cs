using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>Streams for the parallel benchmarks: every producer's, plus the order-lines table as independent-block writers write it.</summary>
    internal static class ParallelInputs
    {
        /// <summary>The order-lines table written by this package's writer (independent 1 MiB blocks).</summary>
        public const string Ours = "arrowlz4fast-1m";

        /// <summary>The order-lines table written with independent 64 KiB blocks, as Arrow Go writes every buffer.</summary>
        public const string GoLike = "go-like-64k";

        private static readonly Lazy<byte[]> OursTable = new(() => Rewrite(SyntheticTable.Batches(), 1 << 20));
        private static readonly Lazy<byte[]> GoLikeTable = new(() => Rewrite(SyntheticTable.Batches(), 64 << 10));

        /// <summary>
        /// <see cref="ProducerStreams.WithSharedNumeric"/> and the two independent-block writers
        /// (<c>ARROWLZ4FAST_BENCH_PRODUCERS</c> narrows them all).
        /// </summary>
        public static string[] Producers()
        {
            var names = new List<string>(ProducerStreams.WithSharedNumeric()) { Ours, GoLike };
            string? only = Environment.GetEnvironmentVariable("ARROWLZ4FAST_BENCH_PRODUCERS");
            if (!string.IsNullOrEmpty(only))
                names.RemoveAll(n => System.Array.IndexOf(only.Split(','), n) < 0);
            return names.ToArray();
        }

        public static IEnumerable<byte[]> Streams(string producer) => producer switch
        {
            Ours => new[] { OursTable.Value },
            GoLike => new[] { GoLikeTable.Value },
            _ => ProducerStreams.Load(producer).Select(s => s.Bytes),
        };

        public static string Describe(string producer) => producer switch
        {
            Ours => "order-lines table written by ArrowLz4Fast (independent 1 MiB blocks)",
            GoLike => "order-lines table written with independent 64 KiB blocks (Arrow Go's frame layout)",
            _ => ProducerStreams.Describe(producer),
        };

        /// <summary>Batches written again with ArrowLz4Fast's writer at <paramref name="blockSize"/>, sequentially.</summary>
        public static byte[] Rewrite(IReadOnlyList<RecordBatch> batches, int blockSize) =>
            SyntheticTable.WriteStream(batches, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = blockSize, MaxDegreeOfParallelism = 1 }));

        public static Lz4FastCodec Codec(int degree, int blockSize = Lz4FrameEncoderOptions.DefaultBlockSize) =>
            new(new Lz4FastOptions { MaxDegreeOfParallelism = degree, BlockSize = blockSize });
    }

    /// <summary>
    /// Codec level, one core against two: every Decompress call of a real read of one producer's streams (as in
    /// CodecBenchmarks), and TryCompress of the same Arrow buffers into destinations of their own length (what
    /// ArrowStreamWriter offers), with the default options but the degree of parallelism. Frames with independent
    /// blocks decode in parallel from the default minimum (256 KiB) up; linked frames (pyarrow, Arrow .NET's official
    /// writer) stay sequential, so their rows show what checking costs.
    /// </summary>
    [MemoryDiagnoser]
    public class ParallelCodecBenchmarks
    {
        private ProducerCodecWorkload _work = null!;

        [ParamsSource(nameof(ProducerNames))]
        public string Producer { get; set; } = ParallelInputs.Ours;

        public static string[] ProducerNames => ParallelInputs.Producers();

        [GlobalSetup]
        public void Setup()
        {
            _work = new ProducerCodecWorkload(Producer);
            long big = _work.Inputs.Lengths.Where(l => l >= Lz4Parallelism.DefaultMinimumLength).Sum(l => (long)l);
            Console.WriteLine($"// {Producer}: {ParallelInputs.Describe(Producer)}");
            Console.WriteLine($"// {Producer}: {_work.Inputs.Profile()}; {big:N0} bytes in buffers of 1 MiB or more");
        }

        [Benchmark(Baseline = true)]
        public long Decode_1Core() => _work.Decode(_work.One, 1);

        [Benchmark]
        public long Decode_2Cores() => _work.Decode(_work.Two, 1);

        [Benchmark]
        public long Encode_1Core() => _work.Encode(_work.One, 1);

        [Benchmark]
        public long Encode_2Cores() => _work.Encode(_work.Two, 1);
    }

    /// <summary>
    /// Codec level, one buffer: an 8 MB buffer (a 1,000,000-row int64 column) and a 2 MB one of the order-lines
    /// table's shape, decoded and encoded at 1 and 2 cores, at each block size. The minimum-length default and the
    /// "1 MiB or more" targets come from here.
    /// </summary>
    [MemoryDiagnoser]
    public class ParallelBufferBenchmarks
    {
        private byte[] _buffer = null!;
        private byte[] _frame = null!;
        private byte[] _output = null!;
        private Lz4FastCodec _one = null!;
        private Lz4FastCodec _two = null!;

        [Params(256 << 10, 1 << 20, 8 << 20)]
        public int Length { get; set; }

        [Params(64 << 10, 256 << 10, 1 << 20)]
        public int BlockSize { get; set; }

        [GlobalSetup]
        public void Setup()
        {
            _buffer = BlockSizeBenchmarks.TableContent(Length);
            _one = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = BlockSize });
            _two = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = BlockSize });
            var frame = new byte[Length + 1024];
            if (!_one.TryCompress(_buffer, frame, out int written))
                throw new InvalidOperationException("the buffer does not compress");
            _frame = frame.AsSpan(0, written).ToArray();
            _output = new byte[Length];
            VcpuSpeed.Log("setup");
        }

        [GlobalCleanup]
        public void Cleanup() => VcpuSpeed.Log("cleanup");

        [Benchmark(Baseline = true)]
        public int Decode_1Core() => _one.Decompress(_frame, _output);

        [Benchmark]
        public int Decode_2Cores() => _two.Decompress(_frame, _output);

        [Benchmark]
        public int Encode_1Core() => _one.TryCompress(_buffer, _output, out int written) ? written : 0;

        [Benchmark]
        public int Encode_2Cores() => _two.TryCompress(_buffer, _output, out int written) ? written : 0;
    }

    /// <summary>
    /// Writing the order-lines table with ArrowStreamWriter: the official codec against ArrowLz4Fast on one and on
    /// two cores (target: 2 cores at least 1.8x the official codec), with Arrow's native allocator and the package's.
    /// ArrowLz4Fast_2Cores_1MiBBlocks is the earlier default block size, which left most of the table's buffers (256 KiB
    /// to 1 MiB) one block each and so on one core.
    /// </summary>
    [MemoryDiagnoser]
    [Config(typeof(OutputSizeConfig))]
    public class ParallelWriterBenchmarks
    {
        private IReadOnlyList<RecordBatch> _batches = null!;
        private MemoryStream _output = null!;
        private MemoryAllocator _allocator = null!;
        private readonly ICompressionCodecFactory _one = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
        private readonly ICompressionCodecFactory _two = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
        private readonly ICompressionCodecFactory _twoLargeBlocks = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2, BlockSize = 1 << 20, MinimumParallelLength = 1 << 20 });

        [Params(Allocators.Native, Allocators.Slab)]
        public string Allocator { get; set; } = Allocators.Slab;

        [GlobalSetup]
        public void Setup()
        {
            _batches = SyntheticTable.Batches();
            _output = new MemoryStream(64 << 20);
            _allocator = Allocators.Create(Allocator);
            VcpuSpeed.Log("setup");
        }

        [GlobalCleanup]
        public void Cleanup() => VcpuSpeed.Log("cleanup");

        [Benchmark(Baseline = true)]
        public long Official() => Write(new CompressionCodecFactory());

        [Benchmark]
        public long ArrowLz4Fast_1Core() => Write(_one);

        [Benchmark]
        public long ArrowLz4Fast_2Cores() => Write(_two);

        [Benchmark]
        public long ArrowLz4Fast_2Cores_1MiBBlocks() => Write(_twoLargeBlocks);

        private long Write(ICompressionCodecFactory factory)
        {
            _output.SetLength(0);
            SyntheticTable.WriteStream(_batches, factory, _output, allocator: _allocator);
            return _output.Length;
        }
    }

    /// <summary>
    /// Whole read and whole write of the 1,000,000-row numeric streams with the package's allocator, one core
    /// against two. "as-written" reads the producer's own stream (pyarrow links its blocks, so it stays sequential;
    /// Java's and arrow-rs's 2 MB buffers are single-block frames); "arrowlz4fast-1m" and "go-like-64k" read the
    /// same batches as written with independent 1 MiB and 64 KiB blocks. The write rows write the batches with
    /// ArrowLz4Fast's default 256 KiB blocks.
    /// </summary>
    [MemoryDiagnoser]
    public class ParallelStreamBenchmarks
    {
        private readonly MemoryAllocator _slab = Allocators.Create(Allocators.Slab);
        private readonly ICompressionCodecFactory _one = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
        private readonly ICompressionCodecFactory _two = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
        private byte[] _bytes = null!;
        private List<RecordBatch> _batches = null!;
        private MemoryStream _output = null!;

        [ParamsSource(nameof(StreamNames))]
        public string Stream { get; set; } = "pyarrow-numeric";

        [Params("as-written", ParallelInputs.Ours, ParallelInputs.GoLike)]
        public string Layout { get; set; } = "as-written";

        public static string[] StreamNames => ProducerStreams.WithSharedNumeric().Where(p => p.EndsWith("-numeric", StringComparison.Ordinal)).DefaultIfEmpty("pyarrow").ToArray();

        [GlobalSetup]
        public void Setup()
        {
            byte[] original = ProducerStreams.Load(Stream)[0].Bytes;
            _batches = new List<RecordBatch>();
            using (var reader = new ArrowStreamReader(new MemoryStream(original), new Lz4FastCodecFactory()))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    _batches.Add(batch);
            }
            _bytes = Layout switch
            {
                ParallelInputs.Ours => ParallelInputs.Rewrite(_batches, 1 << 20),
                ParallelInputs.GoLike => ParallelInputs.Rewrite(_batches, 64 << 10),
                _ => original,
            };
            _output = new MemoryStream(64 << 20);
        }

        [Benchmark(Baseline = true)]
        public long Read_1Core() => ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), _one, _slab);

        [Benchmark]
        public long Read_2Cores() => ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), _two, _slab);

        [Benchmark]
        public long Write_1Core() => Write(_one);

        [Benchmark]
        public long Write_2Cores() => Write(_two);

        private long Write(ICompressionCodecFactory factory)
        {
            _output.SetLength(0);
            SyntheticTable.WriteStream(_batches, factory, _output, allocator: _slab);
            return _output.Length;
        }
    }

    /// <summary>
    /// Parallel calls under load: two or four readers at once (each reading the order-lines table written with
    /// independent 1 MiB blocks), or as many writers at once (each writing the table with the default options), on a
    /// 2-core machine, sequential codec against parallel. With every core busy, the parallel codec's helpers find no
    /// idle core; throughput must not fall more than a few percent.
    /// </summary>
    [MemoryDiagnoser]
    public class ParallelUnderLoadBenchmarks
    {
        private readonly MemoryAllocator _slab = Allocators.Create(Allocators.Slab);
        private readonly ICompressionCodecFactory _one = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });
        private readonly ICompressionCodecFactory _two = new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2 });
        private byte[] _bytes = null!;

        [Params(2, 4)]
        public int Readers { get; set; }

        private IReadOnlyList<RecordBatch> _batches = null!;
        private MemoryStream[] _outputs = null!;

        [GlobalSetup]
        public void Setup()
        {
            _bytes = ParallelInputs.Streams(ParallelInputs.Ours).First();
            _batches = SyntheticTable.Batches();
            _outputs = Enumerable.Range(0, Readers).Select(_ => new MemoryStream(64 << 20)).ToArray();
        }

        [Benchmark(Baseline = true)]
        public long Readers_Sequential() => Read(_one);

        [Benchmark]
        public long Readers_Parallel() => Read(_two);

        [Benchmark]
        public long Writers_Sequential() => Write(_one);

        [Benchmark]
        public long Writers_Parallel() => Write(_two);

        private long Write(ICompressionCodecFactory factory) => Concurrently(i =>
        {
            MemoryStream output = _outputs[i];
            output.SetLength(0);
            SyntheticTable.WriteStream(_batches, factory, output, allocator: _slab);
            return output.Length;
        });

        private long Read(ICompressionCodecFactory factory) =>
            Concurrently(_ => ReplayBenchmarks.ReadAll(new MemoryStream(_bytes, writable: false), factory, _slab));

        /// <summary>Runs <paramref name="work"/> on <see cref="Readers"/> threads at once; the sum of what they return.</summary>
        private long Concurrently(Func<int, long> work)
        {
            long total = 0;
            System.Threading.Tasks.Parallel.For(0, Readers, new System.Threading.Tasks.ParallelOptions { MaxDegreeOfParallelism = Readers }, i =>
                System.Threading.Interlocked.Add(ref total, work(i)));
            return total;
        }
    }
}

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Goal "no producer's codec-level time regresses by more than 3 %", made measurable: the calls of
    /// <see cref="ParallelCodecBenchmarks"/> (every Decompress call of a read of one producer's streams, and TryCompress
    /// of its buffers), repeated so that one operation takes about 64 MiB of decoded bytes (tens of milliseconds for
    /// every producer instead of 0.2-16 ms), at the default options but the degree. docs/probes.md lists
    /// which of these calls go parallel: no Decompress call of a producer's own stream does (linked or single-block
    /// frames), so Decode_2Cores against Decode_1Core is the pre-check alone and should read 1.00; encode goes
    /// parallel for each producer's buffers of 1 MiB or more.
    /// </summary>
    [MemoryDiagnoser]
    public class ParallelCodecSteadyBenchmarks
    {
        private ProducerCodecWorkload _work = null!;
        private int _repeat;

        [ParamsSource(nameof(ProducerNames))]
        public string Producer { get; set; } = ParallelInputs.Ours;

        public static string[] ProducerNames => ParallelInputs.Producers();

        [GlobalSetup]
        public void Setup()
        {
            _work = new ProducerCodecWorkload(Producer);
            _repeat = (int)Math.Max(1, (64L << 20) / Math.Max(1, _work.Inputs.UncompressedBytes));
            Console.WriteLine($"// {Producer}: {_work.Inputs.Frames.Length} frames, {_work.Inputs.UncompressedBytes:N0} bytes, repeated {_repeat} times per operation");
            VcpuSpeed.Log("setup");
        }

        [GlobalCleanup]
        public void Cleanup() => VcpuSpeed.Log("cleanup");

        [Benchmark(Baseline = true)]
        public long Decode_1Core() => _work.Decode(_work.One, _repeat);

        [Benchmark]
        public long Decode_2Cores() => _work.Decode(_work.Two, _repeat);

        [Benchmark]
        public long Encode_1Core() => _work.Encode(_work.One, _repeat);

        [Benchmark]
        public long Encode_2Cores() => _work.Encode(_work.Two, _repeat);
    }

    /// <summary>
    /// One producer's codec work, shared by the codec-level parallel benchmarks: every Decompress call of a real read
    /// of its streams, and TryCompress of the decoded buffers into destinations of their own length.
    /// </summary>
    internal sealed class ProducerCodecWorkload
    {
        private readonly byte[][] _buffers;
        private readonly byte[][] _compressed;

        public ProducerCodecWorkload(string producer)
        {
            Inputs = CodecInputs.Capture(ParallelInputs.Streams(producer));
            One = ParallelInputs.Codec(1);
            Two = ParallelInputs.Codec(2);
            for (int i = 0; i < Inputs.Frames.Length; i++)
                One.Decompress(Inputs.Frames[i], Inputs.Destinations[i]);
            _buffers = Inputs.Destinations.Where(d => d.Length > 0).Select(d => d.ToArray()).ToArray();
            _compressed = System.Array.ConvertAll(_buffers, b => new byte[b.Length]);
        }

        public CodecInputs Inputs { get; }

        /// <summary>The decoded buffers TryCompress compresses.</summary>
        public byte[][] Buffers => _buffers;

        /// <summary>The codec with the default options on one core.</summary>
        public Lz4FastCodec One { get; }

        /// <summary>The codec with the default options on two cores.</summary>
        public Lz4FastCodec Two { get; }

        public long Decode(Lz4FastCodec codec, int repeat)
        {
            byte[][] frames = Inputs.Frames;
            byte[][] destinations = Inputs.Destinations;
            long total = 0;
            for (int r = 0; r < repeat; r++)
            {
                for (int i = 0; i < frames.Length; i++)
                    total += codec.Decompress(frames[i], destinations[i]);
            }
            return total;
        }

        public long Encode(Lz4FastCodec codec, int repeat)
        {
            long total = 0;
            for (int r = 0; r < repeat; r++)
            {
                for (int i = 0; i < _buffers.Length; i++)
                    total += codec.TryCompress(_buffers[i], _compressed[i], out int written) ? written : _buffers[i].Length;
            }
            return total;
        }
    }
}
