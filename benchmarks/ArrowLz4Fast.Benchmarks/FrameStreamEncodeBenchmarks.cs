using System;
using System.IO;
using System.Runtime.InteropServices;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Frames;
using BenchmarkDotNet.Attributes;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// One LZ4 frame written around a whole uncompressed Arrow IPC stream (the order-lines table, the "outer
    /// compression" shape of issue 26) through a Stream, in writes of 81,920 bytes (Stream.CopyTo's default) or one
    /// write of the whole content: <see cref="Lz4FrameStream"/> against K4os <c>LZ4EncoderStream</c> (the baseline,
    /// independent blocks, fast level, no checksums, as here) and native liblz4's LZ4F streaming API
    /// (<c>LZ4F_compressBegin/Update/End</c>, the ceiling), with the span encoder on the whole content alongside;
    /// "_2Cores" cases let the stream and the span encoder compress whole-block runs on two threads. Every case writes
    /// into the same reused MemoryStream.
    /// </summary>
    [MemoryDiagnoser]
    public class FrameStreamEncodeBenchmarks
    {
        private byte[] _content = null!;
        private byte[] _frame = null!;
        private byte[] _nativeOutput = null!;
        private MemoryStream _inner = null!;
        private Lz4FrameEncoderOptions _options;
        private Lz4FrameEncoderOptions _options2Cores;
        private LZ4EncoderSettings _k4os = null!;
        private NativeLz4F _native = null!;

        [Params(64 * 1024, 4 * 1024 * 1024)]
        public int BlockSize { get; set; }

        /// <summary>Bytes per Write call; 0 is the whole content in one call.</summary>
        [Params(81920, 0)]
        public int WriteSize { get; set; }

        [GlobalSetup]
        public void Setup()
        {
            _content = UncompressedIpc();
            _options = new Lz4FrameEncoderOptions(BlockSize);
            _options2Cores = new Lz4FrameEncoderOptions(BlockSize, parallelism: new Lz4Parallelism(2));
            _frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(_content.Length, _options)];
            _inner = new MemoryStream(_frame.Length);
            _k4os = new LZ4EncoderSettings { BlockSize = BlockSize, ChainBlocks = false, CompressionLevel = LZ4Level.L00_FAST };
            _native = new NativeLz4F(BlockSize);
            _nativeOutput = new byte[_native.Bound(WriteSize == 0 ? _content.Length : WriteSize)];
            long span = SpanEncoder();
            // The stream must write the span encoder's frame; a benchmark of wrong output would mean nothing.
            if (Stream_Lz4Frame() != span || !_inner.GetBuffer().AsSpan(0, (int)span).SequenceEqual(_frame.AsSpan(0, (int)span)))
                throw new InvalidOperationException("Lz4FrameStream wrote another frame than the span encoder");
            Console.WriteLine($"// content: {_content.Length} bytes of uncompressed IPC; frame: {span} bytes; LZ4F: {Native_LZ4F()} bytes; K4os: {Stream_K4os()} bytes");
        }

        [GlobalCleanup]
        public void Cleanup() => _native.Dispose();

        /// <summary>The order-lines table as an uncompressed IPC stream, the content CloudFetch-like producers wrap.</summary>
        internal static byte[] UncompressedIpc()
        {
            using var stream = new MemoryStream();
            var batches = SyntheticTable.Batches(batches: 4);
            using (var writer = new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return stream.ToArray();
        }

        [Benchmark(Baseline = true)]
        public long Stream_K4os()
        {
            _inner.SetLength(0);
            using (var stream = LZ4Stream.Encode(_inner, _k4os, leaveOpen: true))
                WriteAll(stream);
            return _inner.Length;
        }

        [Benchmark]
        public long Stream_Lz4Frame()
        {
            _inner.SetLength(0);
            using (var stream = new Lz4FrameStream(_inner, _options, leaveOpen: true))
                WriteAll(stream);
            return _inner.Length;
        }

        [Benchmark]
        public long Stream_Lz4Frame_2Cores()
        {
            _inner.SetLength(0);
            using (var stream = new Lz4FrameStream(_inner, _options2Cores, leaveOpen: true))
                WriteAll(stream);
            return _inner.Length;
        }

        [Benchmark]
        public long SpanEncoder()
        {
            Lz4FrameEncoder.TryEncode(_content, _frame, out int written, _options);
            return written;
        }

        [Benchmark]
        public long SpanEncoder_2Cores()
        {
            Lz4FrameEncoder.TryEncode(_content, _frame, out int written, _options2Cores);
            return written;
        }

        [Benchmark]
        public long Native_LZ4F()
        {
            _inner.SetLength(0);
            _native.Begin(_inner, _nativeOutput);
            int step = WriteSize == 0 ? _content.Length : WriteSize;
            for (int offset = 0; offset < _content.Length; offset += step)
                _native.Update(_content.AsSpan(offset, Math.Min(step, _content.Length - offset)), _inner, _nativeOutput);
            _native.End(_inner, _nativeOutput);
            return _inner.Length;
        }

        private void WriteAll(Stream stream)
        {
            int step = WriteSize == 0 ? _content.Length : WriteSize;
            for (int offset = 0; offset < _content.Length; offset += step)
                stream.Write(_content, offset, Math.Min(step, _content.Length - offset));
        }

        /// <summary>liblz4's frame compressor (the system's liblz4.so.1) through its streaming API, one context reused.</summary>
        private sealed unsafe class NativeLz4F : IDisposable
        {
            private const string Library = "liblz4.so.1";
            private IntPtr _context;
            private Preferences _preferences;

            public NativeLz4F(int blockSize)
            {
                if (LZ4F_isError(LZ4F_createCompressionContext(out _context, 100)) != 0)
                    throw new InvalidOperationException("LZ4F_createCompressionContext failed");
                _preferences.BlockSizeId = blockSize switch { 65536 => 4, 262144 => 5, 1048576 => 6, _ => 7 };
                _preferences.BlockMode = 1; // independent
                _preferences.CompressionLevel = 0; // LZ4_compress_fast, acceleration 1: the package's level 0
            }

            public int Bound(int sourceLength)
            {
                fixed (Preferences* preferences = &_preferences)
                    return (int)LZ4F_compressBound((nuint)sourceLength, preferences) + 64;
            }

            public void Begin(Stream output, byte[] buffer)
            {
                fixed (byte* destination = buffer)
                fixed (Preferences* preferences = &_preferences)
                    output.Write(buffer, 0, Check(LZ4F_compressBegin(_context, destination, (nuint)buffer.Length, preferences)));
            }

            public void Update(ReadOnlySpan<byte> source, Stream output, byte[] buffer)
            {
                fixed (byte* input = source)
                fixed (byte* destination = buffer)
                    output.Write(buffer, 0, Check(LZ4F_compressUpdate(_context, destination, (nuint)buffer.Length, input, (nuint)source.Length, IntPtr.Zero)));
            }

            public void End(Stream output, byte[] buffer)
            {
                fixed (byte* destination = buffer)
                    output.Write(buffer, 0, Check(LZ4F_compressEnd(_context, destination, (nuint)buffer.Length, IntPtr.Zero)));
            }

            public void Dispose()
            {
                if (_context != IntPtr.Zero)
                    LZ4F_freeCompressionContext(_context);
                _context = IntPtr.Zero;
            }

            private static int Check(nuint result) =>
                LZ4F_isError(result) != 0 ? throw new InvalidOperationException(Marshal.PtrToStringAnsi(LZ4F_getErrorName(result))) : (int)result;

            // LZ4F_preferences_t: LZ4F_frameInfo_t (block size ID, block mode, content checksum, frame type, content
            // size, dictionary ID, block checksum), then level, autoFlush, favorDecSpeed and three reserved words.
            [StructLayout(LayoutKind.Sequential)]
            private struct Preferences
            {
                public int BlockSizeId;
                public int BlockMode;
                public int ContentChecksum;
                public int FrameType;
                public ulong ContentSize;
                public uint DictionaryId;
                public int BlockChecksum;
                public int CompressionLevel;
                public uint AutoFlush;
                public uint FavorDecSpeed;
                public uint Reserved0;
                public uint Reserved1;
                public uint Reserved2;
            }

            [DllImport(Library)] private static extern nuint LZ4F_createCompressionContext(out IntPtr context, uint version);
            [DllImport(Library)] private static extern nuint LZ4F_freeCompressionContext(IntPtr context);
            [DllImport(Library)] private static extern nuint LZ4F_compressBound(nuint sourceSize, Preferences* preferences);
            [DllImport(Library)] private static extern nuint LZ4F_compressBegin(IntPtr context, byte* destination, nuint capacity, Preferences* preferences);
            [DllImport(Library)] private static extern nuint LZ4F_compressUpdate(IntPtr context, byte* destination, nuint capacity, byte* source, nuint sourceSize, IntPtr options);
            [DllImport(Library)] private static extern nuint LZ4F_compressEnd(IntPtr context, byte* destination, nuint capacity, IntPtr options);
            [DllImport(Library)] private static extern uint LZ4F_isError(nuint code);
            [DllImport(Library)] private static extern IntPtr LZ4F_getErrorName(nuint code);
        }
    }
}
