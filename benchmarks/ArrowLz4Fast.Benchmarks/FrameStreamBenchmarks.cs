using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Runtime.InteropServices;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// LZ4 frames around a whole Arrow IPC stream (the CloudFetch shape): the pyarrow numeric stream re-encoded without
    /// body compression (about 23 MiB; the committed strings stream when ../shared/corpus is absent) in one frame.
    /// "cloudfetch" reads it to the last batch through ArrowStreamReader: the Databricks driver's path (K4os LZ4Stream,
    /// CopyTo a MemoryStream, ArrowStreamReader over it, Arrow's default allocator) with a new MemoryStream per file
    /// (the measurement) and with one reused across files (the best a pooled, Recyclable-like stream does), the package's one-liner
    /// (Lz4FramedArrow.CreateStreamReader, SlabMemoryAllocator), and the span API (DecodeToOwner, ArrowStreamReader
    /// over the pooled bytes). "decode" is plain decode throughput: K4os LZ4Stream, Lz4FrameStream read in 80 KiB
    /// (Stream.CopyTo's default size: every block through the window) and 4 MiB reads (blocks decoded in place),
    /// Stream.CopyTo itself (its buffer grows to whole blocks after the first read), the span
    /// decoder into a preallocated destination, and native liblz4 LZ4F_decompress as the ceiling. "parallel-4MiB-reads"
    /// and "parallel-80KiB-reads" are Lz4FrameStream's read-ahead: the same reads with options of one thread (the
    /// baseline) and of two (the 4 MiB independent blocks decoded ahead on a helper thread; B4D's linked blocks never go
    /// ahead), so each category's ratio is the 2-core/1-core speed-up; "parallel-CopyTo" the same for Stream.CopyTo.
    /// "copy-to-MemoryStream" copies into a reused MemoryStream: the override against the 80 KiB read-and-write loop
    /// Stream.CopyTo would run without it.
    /// </summary>
    [MemoryDiagnoser]
    [GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
    [CategoriesColumn]
    public class FrameStreamBenchmarks
    {
        private byte[] _frame = null!;
        private byte[] _destination = null!;
        private byte[] _readBuffer = null!;
        private MemoryStream _copy = null!;
        private NativeLz4F? _native;

        private static readonly Lz4FrameDecoderOptions OneThread = new(parallelism: new Lz4Parallelism(1));
        private static readonly Lz4FrameDecoderOptions TwoThreads = new(parallelism: new Lz4Parallelism(2));

        /// <summary>B7I: 4 MiB independent blocks; +size: content size; +crc: content checksum; B4D: 64 KiB linked blocks.</summary>
        [Params("B7I", "B7I+size", "B7I+crc", "B4D")]
        public string Frame { get; set; } = "B7I";

        [GlobalSetup]
        public void Setup()
        {
            byte[] ipc = UncompressedIpc();
            _frame = Frame switch
            {
                "B7I" => Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 4 << 20)),
                "B7I+size" => Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 4 << 20, contentSize: true)),
                "B7I+crc" => Encode(ipc, new Lz4FrameEncoderOptions(blockSize: 4 << 20, contentChecksum: true)),
                "B4D" => LZ4Frame.Encode(ipc.AsSpan(), new ArrayBufferWriter<byte>(), new LZ4EncoderSettings { ChainBlocks = true, BlockSize = 64 * 1024 }).WrittenSpan.ToArray(),
                _ => throw new ArgumentException(Frame),
            };
            _destination = new byte[ipc.Length + (4 << 20)];
            _readBuffer = new byte[4 << 20];
            _copy = new MemoryStream();
            try
            {
                _native = new NativeLz4F();
            }
            catch (DllNotFoundException)
            {
                _native = null;
            }
            Console.WriteLine($"// frame {Frame}: {_frame.Length} bytes around {ipc.Length} bytes of IPC stream");
        }

        [GlobalCleanup]
        public void Cleanup() => _native?.Dispose();

        [Benchmark(Baseline = true), BenchmarkCategory("cloudfetch")]
        public long K4os_CopyTo_new_MemoryStream()
        {
            var copy = new MemoryStream();
            using (var lz4 = LZ4Stream.Decode(new MemoryStream(_frame, writable: false)))
                lz4.CopyTo(copy);
            copy.Position = 0;
            using var reader = new ArrowStreamReader(copy);
            return Rows(reader);
        }

        [Benchmark, BenchmarkCategory("cloudfetch")]
        public long K4os_CopyTo_reused_MemoryStream()
        {
            _copy.SetLength(0);
            using (var lz4 = LZ4Stream.Decode(new MemoryStream(_frame, writable: false)))
                lz4.CopyTo(_copy);
            _copy.Position = 0;
            using var reader = new ArrowStreamReader(_copy, leaveOpen: true);
            return Rows(reader);
        }

        [Benchmark, BenchmarkCategory("cloudfetch")]
        public long Lz4FramedArrow_Stream()
        {
            using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(_frame, writable: false));
            return Rows(reader);
        }

        [Benchmark, BenchmarkCategory("cloudfetch")]
        public long Span_DecodeToOwner()
        {
            using IMemoryOwner<byte> decoded = Lz4FrameDecoder.DecodeToOwner(_frame);
            MemoryMarshal.TryGetArray<byte>(decoded.Memory, out ArraySegment<byte> segment);
            using var reader = new ArrowStreamReader(new MemoryStream(segment.Array!, segment.Offset, segment.Count, writable: false), SlabMemoryAllocator.Shared);
            return Rows(reader);
        }

        [Benchmark(Baseline = true), BenchmarkCategory("decode")]
        public long K4os_LZ4Stream() => Drain(LZ4Stream.Decode(new MemoryStream(_frame, writable: false)), 81920);

        [Benchmark, BenchmarkCategory("decode")]
        public long Stream_80KiB_reads() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), CompressionMode.Decompress), 81920);

        [Benchmark, BenchmarkCategory("decode")]
        public long Stream_4MiB_reads() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), CompressionMode.Decompress), 4 << 20);

        [Benchmark, BenchmarkCategory("decode")]
        public long Stream_CopyTo() => CopyOut(new Lz4FrameStream(new MemoryStream(_frame, writable: false), CompressionMode.Decompress));

        [Benchmark, BenchmarkCategory("decode")]
        public long Span_Decode()
        {
            Lz4FrameDecoder.Decode(_frame, _destination, out _, out int written);
            return written;
        }

        [Benchmark, BenchmarkCategory("decode")]
        public long Native_LZ4F() => _native?.Decode(_frame, _destination) ?? 0;

        [Benchmark(Baseline = true), BenchmarkCategory("parallel-4MiB-reads")]
        public long Stream_4MiB_reads_1_thread() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), OneThread), 4 << 20);

        [Benchmark, BenchmarkCategory("parallel-4MiB-reads")]
        public long Stream_4MiB_reads_2_threads() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), TwoThreads), 4 << 20);

        [Benchmark(Baseline = true), BenchmarkCategory("parallel-80KiB-reads")]
        public long Stream_80KiB_reads_1_thread() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), OneThread), 81920);

        [Benchmark, BenchmarkCategory("parallel-80KiB-reads")]
        public long Stream_80KiB_reads_2_threads() => Drain(new Lz4FrameStream(new MemoryStream(_frame, writable: false), TwoThreads), 81920);

        [Benchmark(Baseline = true), BenchmarkCategory("parallel-CopyTo")]
        public long Stream_CopyTo_1_thread() => CopyOut(new Lz4FrameStream(new MemoryStream(_frame, writable: false), OneThread));

        [Benchmark, BenchmarkCategory("parallel-CopyTo")]
        public long Stream_CopyTo_2_threads() => CopyOut(new Lz4FrameStream(new MemoryStream(_frame, writable: false), TwoThreads));

        [Benchmark(Baseline = true), BenchmarkCategory("copy-to-MemoryStream")]
        public long Loop_80KiB_to_MemoryStream() => LoopInto(new Lz4FrameStream(new MemoryStream(_frame, writable: false), CompressionMode.Decompress), Reset(_copy));

        [Benchmark, BenchmarkCategory("copy-to-MemoryStream")]
        public long CopyTo_MemoryStream() => CopyInto(new Lz4FrameStream(new MemoryStream(_frame, writable: false), CompressionMode.Decompress), Reset(_copy));

        [Benchmark, BenchmarkCategory("copy-to-MemoryStream")]
        public long Loop_80KiB_to_MemoryStream_2_threads() => LoopInto(new Lz4FrameStream(new MemoryStream(_frame, writable: false), TwoThreads), Reset(_copy));

        [Benchmark, BenchmarkCategory("copy-to-MemoryStream")]
        public long CopyTo_MemoryStream_2_threads() => CopyInto(new Lz4FrameStream(new MemoryStream(_frame, writable: false), TwoThreads), Reset(_copy));

        private static MemoryStream Reset(MemoryStream stream)
        {
            stream.SetLength(0);
            return stream;
        }

        /// <summary>What Stream.CopyTo does without the override: 80 KiB reads, each written to the destination.</summary>
        private long LoopInto(Stream stream, Stream destination)
        {
            using (stream)
            {
                int n;
                while ((n = stream.Read(_readBuffer, 0, 81920)) > 0)
                    destination.Write(_readBuffer, 0, n);
            }
            return destination.Length;
        }

        private static long CopyInto(Stream stream, Stream destination)
        {
            using (stream)
                stream.CopyTo(destination);
            return destination.Length;
        }

        /// <summary>Stream.CopyTo with its default buffer into a stream that keeps nothing, as Drain keeps nothing.</summary>
        private static long CopyOut(Stream stream)
        {
            using (stream)
                stream.CopyTo(Stream.Null);
            return 0;
        }

        private long Drain(Stream stream, int readSize)
        {
            long total = 0;
            using (stream)
            {
                int n;
                while ((n = stream.Read(_readBuffer, 0, readSize)) > 0)
                    total += n;
            }
            return total;
        }

        private static long Rows(ArrowStreamReader reader)
        {
            long rows = 0;
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        internal static byte[] Encode(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
            if (!Lz4FrameEncoder.TryEncode(payload, frame, out int written, options))
                throw new InvalidOperationException("encode failed");
            return frame.AsSpan(0, written).ToArray();
        }

        /// <summary>The pyarrow numeric stream (or the committed strings stream) re-encoded without body compression.</summary>
        internal static byte[] UncompressedIpc()
        {
            string numeric = Path.Combine(RepositoryPaths.SharedCorpus, "ipc", "pyarrow", "numeric.arrows");
            string path = File.Exists(numeric) ? numeric : Path.Combine(RepositoryPaths.Corpus, "ipc", "pyarrow", "strings.arrows");
            using var input = new ArrowStreamReader(new MemoryStream(File.ReadAllBytes(path)), new CompressionCodecFactory());
            var batches = new List<RecordBatch>();
            while (input.ReadNextRecordBatch() is RecordBatch batch)
                batches.Add(batch);
            using var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, input.Schema, leaveOpen: true))
            {
                writer.WriteStart();
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            foreach (RecordBatch batch in batches)
                batch.Dispose();
            return output.ToArray();
        }
    }
}
