using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The codec's parallel paths: the same bytes as sequentially, Arrow reads of real and written tables, and no allocation on the sequential path. The frame-level parallel tests are in ArrowLz4Fast.Frames.Tests (Parallel/).</summary>
    public class CodecParallelTests
    {
        /// <summary>Only turns a hang into a failure; no timing is asserted.</summary>
        private static readonly TimeSpan HangDeadline = TimeSpan.FromMinutes(2);

        [Fact]
        public void The_codec_compresses_in_parallel_to_the_sequential_bytes_and_stores_raw_when_the_frame_would_not_be_smaller()
        {
            using var sequential = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = 65536 });
            using var parallel = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = 65536 });
            foreach (string shape in new[] { "mixed", "random", "mostly-random", "int64" })
            {
                byte[] payload = TestData.Shaped(shape, 3_000_001, 4);
                var expected = new byte[payload.Length];
                var actual = new byte[payload.Length];
                bool expectedFits = sequential.TryCompress(payload, expected, out int expectedLength);
                bool actualFits = parallel.TryCompress(payload, actual, out int actualLength);
                Assert.Equal(expectedFits, actualFits);
                Assert.Equal(expectedLength, actualLength);
                Assert.True(expected.AsSpan(0, expectedLength).SequenceEqual(actual.AsSpan(0, actualLength)), shape);
                if (shape == "random")
                    Assert.False(actualFits);
            }
        }


        [Fact]
        public async Task Concurrent_arrow_reads_of_a_table_with_independent_blocks_complete_and_read_what_the_official_codec_reads()
        {
            var batches = TestTables.Batches(2, 200_000, 11);
            byte[] stream = IpcWriter.Write(batches, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = 65536 }), fileFormat: false);
            var expected = ArrowData.ReadAll(stream, fileFormat: false, new Apache.Arrow.Compression.CompressionCodecFactory());
            var factory = new Lz4FastCodecFactory(new Lz4FastOptions { MinimumParallelLength = 1 });
            Task[] readers = Enumerable.Range(0, 24).Select(_ => Task.Run(() =>
            {
                var actual = ArrowData.ReadAll(stream, fileFormat: false, factory);
                ArrowData.AssertSame(expected, actual);
                ArrowData.DisposeAll(actual);
            })).ToArray();
            await Task.WhenAll(readers).WaitAsync(HangDeadline);
            ArrowData.DisposeAll(expected);
            ArrowData.DisposeAll(batches);
        }

        [Fact]
        public void The_sequential_path_allocates_nothing_on_frames_that_could_go_parallel()
        {
            var work = new ParallelWork(65536, 6);
            using var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 1, BlockSize = 65536 });
            var output = new byte[work.Payload.Length];
            var encoded = new byte[work.Payload.Length];
            for (int i = 0; i < 3; i++)
            {
                codec.Decompress(work.Frame, output);
                codec.TryCompress(work.Payload, encoded, out _);
            }

            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 10; i++)
            {
                codec.Decompress(work.Frame, output);
                Assert.True(codec.TryCompress(work.Payload, encoded, out _));
            }
            Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        }


        [Fact]
        public void Real_ipc_buffers_of_every_producer_decode_in_parallel_to_the_reference_bytes()
        {
            var buffers = CorpusBuffers.AllProfiles();
            if (Corpus.SharedAvailable)
            {
                foreach (string file in new[] { "ipc/java/numeric.arrows", "ipc/rust/numeric.arrows", "ipc/java/incompressible.arrows" })
                {
                    var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 }));
                    ArrowData.DisposeAll(ArrowData.ReadAll(Corpus.Shared(file), recorder));
                    buffers.AddRange(recorder.Inputs.Zip(recorder.Decompressed, (i, d) => (i.Frame, i.Length, d.Sha256)));
                }
            }
            using var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 4, MinimumParallelLength = 1 });
            foreach ((byte[] frame, int length, string sha) in buffers)
            {
                var destination = new GuardedBuffer(length);
                Assert.Equal(length, codec.Decompress(frame, destination.Memory));
                Assert.Equal(sha, Hex.Sha256(destination.Span));
                destination.AssertGuardsIntact();
            }
        }

        [Theory]
        [InlineData(65536)]
        [InlineData(1048576)]
        public void Tables_written_with_independent_blocks_read_in_parallel_as_the_official_codec_reads_them(int blockSize)
        {
            // 64 KiB blocks are what Arrow Go writes; 1 MiB is this package's writer.
            var batches = TestTables.Batches(2, 300_000, 3);
            byte[] stream = IpcWriter.Write(batches, new Lz4FastCodecFactory(new Lz4FastOptions { BlockSize = blockSize, MaxDegreeOfParallelism = 1 }), fileFormat: false);
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1 }));
            var parallel = ArrowData.ReadAll(stream, fileFormat: false, recorder);
            var official = ArrowData.ReadAll(stream, fileFormat: false, new Apache.Arrow.Compression.CompressionCodecFactory());
            ArrowData.AssertSame(official, parallel);
            Assert.Contains(recorder.Inputs, i => CorpusBuffers.IndependentBlocks(i.Frame) >= 2);
            ArrowData.DisposeAll(parallel);
            ArrowData.DisposeAll(official);
            ArrowData.DisposeAll(batches);
        }
    }
}
