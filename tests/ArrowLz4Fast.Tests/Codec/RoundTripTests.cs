using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>Apache.Arrow's writers and readers with the factory on one or both ends.</summary>
    public class RoundTripTests
    {
        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void Our_writer_and_our_reader_round_trip_a_realistic_table(bool fileFormat)
        {
            RecordBatch[] batches = TestTables.Batches(3, 50_000, 1);
            byte[] written = IpcWriter.Write(batches, new Lz4FastCodecFactory(), fileFormat);

            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(written, fileFormat, new Lz4FastCodecFactory()));
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void The_official_reader_reads_what_we_write_and_we_read_what_it_writes(bool fileFormat)
        {
            RecordBatch[] batches = TestTables.Batches(2, 80_000, 2);

            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(IpcWriter.Write(batches, new Lz4FastCodecFactory(), fileFormat), fileFormat, new OfficialFactory()));
            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(IpcWriter.Write(batches, new OfficialFactory(), fileFormat), fileFormat, new Lz4FastCodecFactory()));
        }

        [Fact]
        public void The_official_writer_output_takes_the_direct_path_with_its_linked_blocks()
        {
            RecordBatch[] batches = TestTables.Batches(1, 200_000, 3, withNoise: false);
            byte[] written = IpcWriter.Write(batches, new OfficialFactory(), fileFormat: false);
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());

            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(written, false, recorder));

            Assert.Contains(recorder.Inputs, input => CorpusBuffers.IsLinkedMultiBlock(input.Frame));
        }

        [Fact]
        public void An_incompressible_column_is_stored_raw_and_comes_back_intact()
        {
            RecordBatch[] batches = TestTables.Batches(1, 40_000, 4);
            var spy = new TryCompressSpy(new Lz4FastCodecFactory());
            byte[] written = IpcWriter.Write(batches, spy, fileFormat: false);
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());

            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(written, false, recorder));

            Assert.True(spy.Refused >= 1, "the random binary column should not compress");
            Assert.True(spy.Compressed >= 5);
            // Arrow hands the reader's codec the buffers that were compressed (the refused ones carry -1) and the empty
            // ones, which its writer marks with a bare 0 length without asking the codec.
            Assert.Equal(spy.Compressed, recorder.Inputs.Count(input => input.Frame.Length > 0));
        }

        [Theory]
        [InlineData(0)]
        [InlineData(9)]
        [InlineData(12)]
        public void The_writer_compression_level_reaches_our_codec(int level)
        {
            RecordBatch[] batches = TestTables.Batches(1, 30_000, 5, withNoise: false);
            byte[] fast = IpcWriter.Write(batches, new Lz4FastCodecFactory(), false, 0);
            byte[] leveled = IpcWriter.Write(batches, new Lz4FastCodecFactory(), false, level);

            ArrowData.AssertSameValues(batches, ArrowData.ReadAll(leveled, false, new OfficialFactory()));
            if (level >= 9)
                Assert.True(leveled.Length < fast.Length, $"level {level} wrote {leveled.Length} bytes, fast wrote {fast.Length}");
        }

        private sealed class TryCompressSpy : ICompressionCodecFactory
        {
            private readonly ICompressionCodecFactory _inner;

            public TryCompressSpy(ICompressionCodecFactory inner) => _inner = inner;

            public int Compressed { get; private set; }

            public int Refused { get; private set; }

            public ICompressionCodec CreateCodec(CompressionCodecType type) => CreateCodec(type, null);

            public ICompressionCodec CreateCodec(CompressionCodecType type, int? level) =>
                new Codec(this, (ITryCompressionCodec)_inner.CreateCodec(type, level));

            private sealed class Codec : ITryCompressionCodec
            {
                private readonly TryCompressSpy _spy;
                private readonly ITryCompressionCodec _codec;

                public Codec(TryCompressSpy spy, ITryCompressionCodec codec)
                {
                    _spy = spy;
                    _codec = codec;
                }

                public bool TryCompress(ReadOnlyMemory<byte> source, Memory<byte> destination, out int bytesWritten)
                {
                    bool fits = _codec.TryCompress(source, destination, out bytesWritten);
                    if (fits) _spy.Compressed++; else _spy.Refused++;
                    return fits;
                }

                public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination) => _codec.Decompress(source, destination);

                public void Compress(ReadOnlyMemory<byte> source, Stream destination) => throw new InvalidOperationException("Arrow should use TryCompress");

                public void Dispose() => _codec.Dispose();
            }
        }
    }
}
