using System;
using System.Linq;
using ArrowLz4Fast.Frames;
using BenchmarkDotNet.Attributes;
using K4os.Compression.LZ4;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// The block encoder alone, one core: every Arrow buffer of a producer's streams (decoded; for arrowlz4fast-1m the
    /// order-lines table) cut into the default 256 KiB blocks and compressed with the frame encoder's limit (one byte
    /// under the block), by K4os <c>LZ4Codec.Encode</c> (baseline, what the package used before) and by the package's
    /// own <see cref="Lz4BlockEncoder"/>. Both write the same bytes (checked in setup); repeated to about 32 MiB of
    /// input per operation.
    /// </summary>
    [MemoryDiagnoser]
    public class BlockEncoderBenchmarks
    {
        private const int BlockSize = Lz4FrameEncoderOptions.DefaultBlockSize;
        private byte[][] _buffers = null!;
        private byte[] _output = null!;
        private int _repeat;

        [ParamsSource(nameof(ProducerNames))]
        public string Producer { get; set; } = ParallelInputs.Ours;

        /// <summary>Every producer but go-like-64k, which holds the same table as arrowlz4fast-1m.</summary>
        public static string[] ProducerNames => ParallelInputs.Producers().Where(p => p != ParallelInputs.GoLike).ToArray();

        [GlobalSetup]
        public void Setup()
        {
            _buffers = new ProducerCodecWorkload(Producer).Buffers;
            _output = new byte[BlockSize];
            long bytes = _buffers.Sum(b => (long)b.Length);
            _repeat = (int)Math.Max(1, (32L << 20) / Math.Max(1, bytes));
            byte[] other = new byte[BlockSize];
            foreach (byte[] buffer in _buffers)
            {
                for (int offset = 0; offset < buffer.Length; offset += BlockSize)
                {
                    ReadOnlySpan<byte> block = buffer.AsSpan(offset, Math.Min(BlockSize, buffer.Length - offset));
                    int a = LZ4Codec.Encode(block, _output.AsSpan(0, block.Length - 1), LZ4Level.L00_FAST);
                    int b = Lz4BlockEncoder.Encode(block, other.AsSpan(0, block.Length - 1), LZ4Level.L00_FAST);
                    if (a != b || (a > 0 && !_output.AsSpan(0, a).SequenceEqual(other.AsSpan(0, b))))
                        throw new InvalidOperationException($"{Producer}: the encoders differ on a {block.Length}-byte block");
                }
            }
            Console.WriteLine($"// {Producer}: {_buffers.Length} buffers, {bytes:N0} bytes, repeated {_repeat} times per operation");
        }

        [Benchmark(Baseline = true)]
        public long K4os() => Run(useK4os: true);

        [Benchmark]
        public long ArrowLz4Fast() => Run(useK4os: false);

        private long Run(bool useK4os)
        {
            long total = 0;
            Span<byte> output = _output;
            for (int r = 0; r < _repeat; r++)
            {
                foreach (byte[] buffer in _buffers)
                {
                    for (int offset = 0; offset < buffer.Length; offset += BlockSize)
                    {
                        ReadOnlySpan<byte> block = buffer.AsSpan(offset, Math.Min(BlockSize, buffer.Length - offset));
                        Span<byte> limit = output.Slice(0, Math.Max(0, block.Length - 1));
                        total += useK4os
                            ? LZ4Codec.Encode(block, limit, LZ4Level.L00_FAST)
                            : Lz4BlockEncoder.Encode(block, limit, LZ4Level.L00_FAST);
                    }
                }
            }
            return total;
        }
    }
}
