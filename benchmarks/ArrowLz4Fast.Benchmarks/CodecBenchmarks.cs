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
    /// plus the checksums the frames carry, the work no frame decoder can avoid; Ceiling_ClearFirst and
    /// Ceiling_Prescan = the ceiling made independent of the destination's old bytes in the two ways the project
    /// did not adopt (it ports liblz4's block decoder instead).
    /// </summary>
    [MemoryDiagnoser]
    public class CodecBenchmarks
    {
        private CodecInputs _inputs = null!;
        private ICompressionCodec _official = null!;
        private ICompressionCodec _fast = null!;
        private ICompressionCodec _fastUnverified = null!;
        private CeilingDecoder _ceiling = null!;
        private CeilingDecoder _clearThenK4os = null!;
        private CeilingDecoder _prescanThenK4os = null!;
        private CeilingDecoder _ported = null!;

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
            _clearThenK4os = new CeilingDecoder(_inputs.Frames, CeilingDecoder.OffsetZeroGuard.ClearDestination);
            _prescanThenK4os = new CeilingDecoder(_inputs.Frames, CeilingDecoder.OffsetZeroGuard.PrescanOffsets);
            _ported = new CeilingDecoder(_inputs.Frames, CeilingDecoder.OffsetZeroGuard.PortedDecoder);
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

        /// <summary>The ceiling with the project's block decoder in place of K4os's: the block loop alone, no frame parsing.</summary>
        [Benchmark]
        public long Ceiling_PortedBlockDecoder() => _ported.Decode(_inputs.Frames, _inputs.Destinations);

        /// <summary>Candidate design for offset 0 (not adopted): clear the destination, then the ceiling's K4os decode.</summary>
        [Benchmark]
        public long Ceiling_ClearFirst() => _clearThenK4os.Decode(_inputs.Frames, _inputs.Destinations);

        /// <summary>Candidate design for offset 0 (not adopted): scan every block's sequences for offset 0, then the ceiling's K4os decode.</summary>
        [Benchmark]
        public long Ceiling_Prescan() => _prescanThenK4os.Decode(_inputs.Frames, _inputs.Destinations);

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
