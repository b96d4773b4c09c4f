using System;
using System.Buffers;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Whole reads of a corpus stream with the same allocator (SlabMemoryAllocator): the codec path
    /// (ArrowStreamReader + Lz4FastCodecFactory) against IpcDecompressingStream, each at 1 and 2 cores, and the ceiling
    /// of the new path in the same run: two threads decoding each batch's buffers, claimed largest first from one
    /// counter, into reused destinations (hot) and into fresh allocator memory per message, not zeroed first (cold).
    /// </summary>
    /// <remarks>
    /// Warmed up before the pilot (<see cref="WarmUp"/>) and by at least 20 warmup iterations (docs/parallel-read.md):
    /// with three 200 ms warmups alone, every case was still getting faster through its measured iterations, the
    /// wrapper most (its first ones 2-7 times slower than its last), so the ratios measured warm-up, not the paths.
    /// </remarks>
    [MemoryDiagnoser]
    [WarmupCount(20)]
    public class IpcParallelReadBenchmarks
    {
        private readonly MemoryAllocator _slab = new SlabMemoryAllocator();
        private byte[] _bytes = null!;
        private byte[] _plain = null!;
        private List<Body> _bodies = null!;
        private ICompressionCodecFactory? _other;

        [ParamsSource(nameof(Streams))]
        public string Stream { get; set; } = "pyarrow/numeric";

        // The corpus streams, then issue #35's shapes: the numeric and strings streams rewritten with independent
        // 64 KiB blocks (as Arrow Go and python-lz4 write them) and pyarrow's ZSTD stream, which passes through.
        private static readonly string[] AllStreams =
        {
            "pyarrow/numeric", "rust/numeric", "java/numeric", "pyarrow/strings", "rust/strings", "java/strings", "dotnet/orders", "pyarrow/tiny_batches", "pyarrow/wide", "java/nested_dict",
            IndependentBlockStreams.Prefix + "pyarrow/numeric", IndependentBlockStreams.Prefix + "pyarrow/strings", Zstd,
        };

        private const string Zstd = "pyarrow/numeric_zstd";

        /// <summary>Every stream, or the comma-separated subset in IPC_BENCH_STREAMS (to re-run some of them).</summary>
        public static IEnumerable<string> Streams() =>
            Environment.GetEnvironmentVariable("IPC_BENCH_STREAMS") is { Length: > 0 } subset
                ? subset.Split(',').Select(s => s.Trim()).Where(s => AllStreams.Contains(s))
                : AllStreams;

        private sealed class Body
        {
            public byte[] Source = Array.Empty<byte>();
            public IpcBufferItem[] Items = Array.Empty<IpcBufferItem>();
            public int[] Order = Array.Empty<int>();
            public byte[] Destination = Array.Empty<byte>();

            /// <summary>Where the body starts in the stream's bytes, and a reused array the stream ceiling copies it into.</summary>
            public int Start;
            public byte[] Copy = Array.Empty<byte>();
        }

        [GlobalSetup]
        public void Setup()
        {
            _bytes = Stream.StartsWith(IndependentBlockStreams.Prefix, StringComparison.Ordinal) ? IndependentBlockStreams.Load(Stream)
                : Stream.EndsWith("/numeric", StringComparison.Ordinal) || Stream == Zstd
                ? File.ReadAllBytes(Path.Combine(RepositoryPaths.SharedCorpus, "ipc", Stream + ".arrows"))
                : ProducerStreams.LoadStream(Stream);
            // Only the ZSTD stream needs a codec besides LZ4, on both paths (the wrapper passes its bodies through).
            _other = Stream == Zstd ? new Apache.Arrow.Compression.CompressionCodecFactory() : null;
            _bodies = Layout(_bytes);
            using (var decompressed = new IpcDecompressingStream(new MemoryStream(_bytes, writable: false), Options(1)))
            {
                var plain = new MemoryStream();
                decompressed.CopyTo(plain);
                _plain = plain.ToArray();
            }
            if (Read(new MemoryStream(_bytes, writable: false), Codec(1)) != Read(new IpcDecompressingStream(new MemoryStream(_bytes, writable: false), Options(2)), Passed(2)))
                throw new InvalidOperationException($"{Stream}: the two paths read different row counts");
            _file = Path.Combine(Path.GetTempPath(), $"ipc-parallel-read-{Guid.NewGuid():N}.arrows");
            File.WriteAllBytes(_file, _bytes);
            Console.WriteLine($"// {Stream}: {_bodies.Count} compressed messages, {(_bodies.Count == 0 ? 0 : _bodies.Average(b => b.Items.Length)):F1} buffers a message");
            WarmUp();
        }

        /// <summary>
        /// Runs every path for two seconds before BenchmarkDotNet's pilot. Warm-up here goes by calls, not by time: with
        /// the default warmup a tiny_batches operation went from 38 ms to 7.8 ms over its first 50 calls, and the pilot,
        /// which had seen the slow ones, gave each iteration 4 operations.
        /// </summary>
        private void WarmUp()
        {
            var clock = Stopwatch.StartNew();
            for (int round = 0; round < 3 || clock.ElapsedMilliseconds < 2000; round++)
            {
                Codec_1core();
                Codec_2cores();
                Wrapper_1core();
                Wrapper_2cores();
                Wrapper_2cores_memory();
                Arrow_alone_decompressed();
                Ceiling_2cores_hot();
            }
        }

        [Benchmark(Baseline = true)]
        public long Codec_1core() => Read(new MemoryStream(_bytes, writable: false), Codec(1));

        [Benchmark]
        public long Codec_2cores() => Read(new MemoryStream(_bytes, writable: false), Codec(2));

        [Benchmark]
        public long Wrapper_1core() => Read(new IpcDecompressingStream(new MemoryStream(_bytes, writable: false), Options(1)), Passed(1));

        [Benchmark]
        public long Wrapper_2cores() => Read(new IpcDecompressingStream(new MemoryStream(_bytes, writable: false), Options(2)), Passed(2));

        /// <summary>Arrow's own share of a read: the same stream already decompressed, read from memory (its work plus one copy of each body).</summary>
        [Benchmark]
        public long Arrow_alone_decompressed() => Read(new MemoryStream(_plain, writable: false), _other);

        [Benchmark]
        public long Ceiling_2cores_hot()
        {
            long total = 0;
            foreach (Body body in _bodies)
            {
                TwoThreads(body, body.Destination);
                total += body.Destination.Length;
            }
            return total;
        }

        [Benchmark]
        public long Ceiling_2cores_cold()
        {
            long total = 0;
            foreach (Body body in _bodies)
            {
                using IMemoryOwner<byte> owner = _slab.Allocate(body.Destination.Length);
                // As the new path does: the decode writes the buffer, so the allocator need not zero it first.
                SlabMemoryOwner.TrySkipClear(owner.Memory, out _);
                using MemoryHandle pin = owner.Memory.Pin();
                unsafe
                {
                    TwoThreads(body, new Span<byte>(pin.Pointer, body.Destination.Length));
                }
                total += body.Destination.Length;
            }
            return total;
        }

        /// <summary>The wrapper over the stream's bytes as <see cref="ReadOnlyMemory{T}"/>: bodies are decoded where they lie, not copied first.</summary>
        [Benchmark]
        public long Wrapper_2cores_memory() => Read(new IpcDecompressingStream(_bytes.AsMemory(), Options(2)), Passed(2));

        /// <summary>
        /// The codec path, the wrapper (over a stream and over memory) and the hot ceiling at two cores, one after the
        /// other in each operation (in a rotating order), each timed: on this VM the speed of a process changes by up to
        /// 2x from one case's process to the next (its vCPUs run at unequal speeds in episodes), so the ratios of
        /// separate cases are only as good as that; these share the moment. The cleanup prints the medians of the
        /// second half of the operations (the warmup is over by then) into the log as <c>// interleaved 2 cores: …</c>,
        /// which <c>benchmarks/tools/interleaved.py</c> reads.
        /// </summary>
        /// <remarks>
        /// A fifth path copies the input out of a stream like the wrapper's, decoding nothing: a reader from a stream
        /// must do that copy besides the ceiling's decode, so on two cores it takes at least the ceiling plus half the
        /// copy (the line's <c>(ceiling + copy/2)/wrapper</c>), however well it overlaps the two. A sixth measures that
        /// bound: the ceiling from the input (<see cref="CeilingFromInput"/>), the copy split between the two threads.
        /// </remarks>
        [Benchmark]
        public long Interleaved_2cores() => _interleaved2.Run(_paths2 ??= new Func<long>[] { Codec_2cores, Wrapper_2cores, Ceiling_2cores_hot, Wrapper_2cores_memory, InputCopy, CeilingFromInput });

        /// <summary>
        /// The hot ceiling for a reader that must copy its input, the copy shared perfectly: each of the two threads
        /// copies each buffer it claims out of the stream's bytes into a reused array, then decodes it from there. No
        /// stream reader can do better (a stream is read by one thread at a time, and the metadata is copied too).
        /// </summary>
        private long CeilingFromInput()
        {
            long total = 0;
            foreach (Body body in _bodies)
            {
                TwoThreads(body, body.Destination, _bytes);
                total += body.Destination.Length;
            }
            return total;
        }

        /// <summary>The input's bytes read out of a stream like the wrapper's into a reused array, and nothing else.</summary>
        private long InputCopy()
        {
            var stream = new MemoryStream(_bytes, writable: false);
            byte[] copy = _copy ??= new byte[_bytes.Length + 1];
            int got = 0;
            int n;
            while ((n = stream.Read(copy, got, copy.Length - got)) > 0)
                got += n;
            return got;
        }

        private byte[]? _copy;

        /// <summary>The codec path and the wrapper at one core, interleaved as <see cref="Interleaved_2cores"/> is (<c>// interleaved 1 core: …</c>).</summary>
        [Benchmark]
        public long Interleaved_1core() => _interleaved1.Run(_paths1 ??= new Func<long>[] { Codec_1core, Wrapper_1core });

        /// <summary>
        /// The codec path and the wrapper from a file, as README's example opens it (<see cref="File.OpenRead"/>; in the
        /// page cache after the first read), with the ceiling from input and the decode-only ceiling, interleaved as
        /// <see cref="Interleaved_2cores"/> is (<c>// interleaved 2 cores from a file: …</c>).
        /// </summary>
        [Benchmark]
        public long Interleaved_2cores_file() => _interleavedFile.Run(_pathsFile ??= new Func<long>[]
        {
            () => Read(File.OpenRead(_file), Codec(2)),
            () => Read(new IpcDecompressingStream(File.OpenRead(_file), Options(2)), Passed(2)),
            CeilingFromInput,
            Ceiling_2cores_hot,
        });

        private string _file = "";
        private Func<long>[]? _pathsFile;
        private readonly InterleavedTimes _interleavedFile = new InterleavedTimes(4, kept: 1 << 16);

        private Func<long>[]? _paths2;
        private Func<long>[]? _paths1;

        // Per operation, the ticks of each path (InterleavedTimes: preallocated, so timing allocates nothing).
        private readonly InterleavedTimes _interleaved2 = new InterleavedTimes(6, kept: 1 << 16);
        private readonly InterleavedTimes _interleaved1 = new InterleavedTimes(2, kept: 1 << 16);

        [GlobalCleanup]
        public void PrintInterleaved()
        {
            if (_interleaved2.Enough)
            {
                InterleavedTimes m = _interleaved2;
                Console.WriteLine(FormattableString.Invariant(
                    $"// interleaved 2 cores: {Stream}: {m.Operations} operations; medians codec {m.MedianMilliseconds(0):F3} ms, wrapper {m.MedianMilliseconds(1):F3} ms, ceiling hot {m.MedianMilliseconds(2):F3} ms; per operation codec/wrapper {m.MedianRatio(0, 1):F3}, ceiling/wrapper {m.MedianRatio(2, 1):F3}; from memory: wrapper {m.MedianMilliseconds(3):F3} ms, codec/wrapper {m.MedianRatio(0, 3):F3}, ceiling/wrapper {m.MedianRatio(2, 3):F3}; input copy {m.MedianMilliseconds(4):F3} ms, (ceiling + copy/2)/wrapper {m.Median(t => (t[2] + (t[4] / 2.0)) / t[1]):F3}; ceiling from input {m.MedianMilliseconds(5):F3} ms, ceiling from input/wrapper {m.MedianRatio(5, 1):F3}"));
            }
            if (_interleavedFile.Enough)
            {
                InterleavedTimes m = _interleavedFile;
                Console.WriteLine(FormattableString.Invariant(
                    $"// interleaved 2 cores from a file: {Stream}: {m.Operations} operations; medians codec {m.MedianMilliseconds(0):F3} ms, wrapper {m.MedianMilliseconds(1):F3} ms, ceiling from input {m.MedianMilliseconds(2):F3} ms, ceiling hot {m.MedianMilliseconds(3):F3} ms; per operation codec/wrapper {m.MedianRatio(0, 1):F3}, ceiling from input/wrapper {m.MedianRatio(2, 1):F3}, ceiling hot/wrapper {m.MedianRatio(3, 1):F3}"));
            }
            if (_interleaved1.Enough)
            {
                InterleavedTimes m = _interleaved1;
                Console.WriteLine(FormattableString.Invariant(
                    $"// interleaved 1 core: {Stream}: {m.Operations} operations; medians codec {m.MedianMilliseconds(0):F3} ms, wrapper {m.MedianMilliseconds(1):F3} ms; per operation codec/wrapper {m.MedianRatio(0, 1):F3}"));
            }
            File.Delete(_file);
        }

        private static Lz4FastOptions Options(int degree) => new() { MaxDegreeOfParallelism = degree };

        private Lz4FastCodecFactory Codec(int degree) => new(Options(degree), _other);

        /// <summary>What the wrapper's reader needs for the bodies that pass through: the codec path's factory for ZSTD, as docs/parallel-read.md shows it, else none.</summary>
        private Lz4FastCodecFactory? Passed(int degree) => _other is null ? null : Codec(degree);

        private long Read(System.IO.Stream stream, ICompressionCodecFactory? factory)
        {
            long rows = 0;
            using var reader = new ArrowStreamReader(stream, _slab, factory!, leaveOpen: false);
            while (reader.ReadNextRecordBatch() is Apache.Arrow.RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        /// <summary>Two threads decode the body's buffers, claimed largest first; with <paramref name="input"/>, each copies its buffer out of it first.</summary>
        private static unsafe void TwoThreads(Body body, Span<byte> destination, byte[]? input = null)
        {
            int next = 0;
            fixed (byte* target = destination)
            {
                byte* pointer = target;
                int length = destination.Length;
                void Work()
                {
                    var output = new Span<byte>(pointer, length);
                    int i;
                    while ((i = Interlocked.Increment(ref next) - 1) < body.Order.Length)
                    {
                        ref IpcBufferItem item = ref body.Items[body.Order[i]];
                        if (input is null)
                        {
                            IpcBufferDecoder.Decode(body.Source, output, in item, 0, default);
                            continue;
                        }
                        input.AsSpan(body.Start + item.Source, item.SourceLength).CopyTo(body.Copy.AsSpan(item.Source));
                        IpcBufferDecoder.Decode(body.Copy, output, in item, 0, default);
                    }
                }
                Task helper = Task.Run(Work);
                Work();
                helper.Wait();
            }
        }

        private static List<Body> Layout(byte[] bytes)
        {
            var bodies = new List<Body>();
            int position = 0;
            while (position + 8 <= bytes.Length)
            {
                int length = BitConverter.ToInt32(bytes, position);
                int prefix = 4;
                if (length == -1)
                {
                    length = BitConverter.ToInt32(bytes, position + 4);
                    prefix = 8;
                }
                if (length <= 0)
                    break;
                int metadata = position + prefix;
                var reader = new FlatReader(bytes, metadata, length, metadata);
                IpcMessage message = IpcMessageParser.Parse(reader);
                int bodyStart = metadata + length;
                if (message.Lz4)
                {
                    var body = new Body { Source = bytes.AsSpan(bodyStart, (int)message.BodyLength).ToArray(), Items = new IpcBufferItem[message.BufferCount], Start = bodyStart, Copy = new byte[message.BodyLength] };
                    long output = IpcBodyLayout.Compute(reader, message, body.Source, 0, body.Items, IpcDecompressingStream.DefaultMaxBodyLength);
                    body.Destination = new byte[output];
                    body.Order = Enumerable.Range(0, body.Items.Length).Where(i => body.Items[i].Length > 0 || !body.Items[i].Raw).OrderByDescending(i => body.Items[i].Length).ToArray();
                    bodies.Add(body);
                }
                position = bodyStart + (int)message.BodyLength;
            }
            return bodies;
        }
    }
}
