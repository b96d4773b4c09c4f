using System;
using System.Linq;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Codec level: every Decompress call a real read of one producer's streams makes, replayed into Arrow-sized
    /// destinations. Official = Apache.Arrow.Compression's codec; Ceiling = K4os block decodes of pre-located blocks
    /// plus the checksums the frames carry, the work no frame decoder can avoid.
    /// </summary>
    [MemoryDiagnoser]
    public class CodecBenchmarks
    {
        private CodecInputs _inputs = null!;
        private ICompressionCodec _official = null!;
        private ICompressionCodec _fast = null!;
        private ICompressionCodec _fastUnverified = null!;
        private CeilingDecoder _ceiling = null!;

        [ParamsSource(nameof(ProducerNames))]
        public string Producer { get; set; } = ProducerStreams.Pyarrow;

        public static string[] ProducerNames => ProducerStreams.WithSharedNumeric();

        [GlobalSetup]
        public void Setup()
        {
            _inputs = CodecInputs.Capture(ProducerStreams.Load(Producer).Select(s => s.Bytes));
            _official = new CompressionCodecFactory().CreateCodec(CompressionCodecType.Lz4Frame);
            _fast = new Lz4FastCodecFactory().CreateCodec(CompressionCodecType.Lz4Frame);
            _fastUnverified = new Lz4FastCodecFactory(new Lz4FastOptions { VerifyChecksums = false }).CreateCodec(CompressionCodecType.Lz4Frame);
            _ceiling = new CeilingDecoder(_inputs.Frames);
            Console.WriteLine($"// {Producer}: {ProducerStreams.Describe(Producer)}");
            Console.WriteLine($"// {Producer}: {_inputs.Profile()}");
        }

        [Benchmark(Baseline = true)]
        public long Official() => Run(_official);

        [Benchmark]
        public long ArrowLz4Fast() => Run(_fast);

        /// <summary>Checksums present in the frames are not verified: shows what xxHash32 costs where frames carry it.</summary>
        [Benchmark]
        public long ArrowLz4Fast_NoVerify() => Run(_fastUnverified);

        [Benchmark]
        public long Ceiling() => _ceiling.Decode(_inputs.Frames, _inputs.Destinations);

        private long Run(ICompressionCodec codec)
        {
            byte[][] frames = _inputs.Frames;
            byte[][] destinations = _inputs.Destinations;
            long total = 0;
            for (int i = 0; i < frames.Length; i++)
                total += codec.Decompress(frames[i], destinations[i]);
            return total;
        }
    }
}
