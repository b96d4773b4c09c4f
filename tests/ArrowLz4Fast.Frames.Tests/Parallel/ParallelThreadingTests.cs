using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Parallel calls never depend on a pool thread being free: the caller claims blocks too and never waits for a
    /// queued work item that has not started. And the managed allocation on the sequential path: none. No timing is
    /// asserted; the deadlines below only turn a hang into a failure.
    /// </summary>
    public class ParallelThreadingTests
    {
        internal static readonly TimeSpan HangDeadline = TimeSpan.FromMinutes(2);
        private readonly ITestOutputHelper _output;

        public ParallelThreadingTests(ITestOutputHelper output) => _output = output;

        internal sealed class Work
        {
            public Work(int blockSize, int seed)
            {
                Payload = TestData.Mixed(3_000_000 + seed * 1000, seed);
                Options = new Lz4FrameEncoderOptions(blockSize, 0, true, false);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(Payload.Length, Options)];
                Assert.True(Lz4FrameEncoder.TryEncode(Payload, frame, out int length, Options));
                Frame = frame.AsSpan(0, length).ToArray();
            }

            public byte[] Payload { get; }

            public byte[] Frame { get; }

            public Lz4FrameEncoderOptions Options { get; }

            /// <summary>One parallel decode and one parallel encode, both checked against the sequential result.</summary>
            public void RunOnce(int degree)
            {
                var parallelism = new Lz4Parallelism(degree, 1);
                var output = new byte[Payload.Length];
                Assert.True(Lz4FrameDecoder.TryDecode(Frame, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, parallelism)));
                Assert.Equal(Payload.Length, written);
                Assert.True(Payload.AsSpan().SequenceEqual(output));

                var encoded = new byte[Payload.Length];
                var options = new Lz4FrameEncoderOptions(Options.BlockSize, 0, true, false, parallelism: parallelism);
                Assert.True(Lz4FrameEncoder.TryEncode(Payload, encoded, out int encodedLength, options));
                Assert.True(Frame.AsSpan().SequenceEqual(encoded.AsSpan(0, encodedLength)));
            }
        }

        [Fact]
        public async Task Many_concurrent_parallel_calls_on_a_saturated_pool_all_complete_with_the_sequential_result()
        {
            var works = new[] { new Work(65536, 3), new Work(262144, 4), new Work(1048576, 5) };
            int done = 0;
            Task[] tasks = Enumerable.Range(0, 48).Select(i => Task.Run(() =>
            {
                for (int round = 0; round < 3; round++)
                    works[(i + round) % works.Length].RunOnce(degree: i % 2 == 0 ? -1 : 8);
                Interlocked.Increment(ref done);
            })).ToArray();
            await Task.WhenAll(tasks).WaitAsync(HangDeadline);
            Assert.Equal(tasks.Length, done);
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
            var work = new Work(65536, 6);
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
    }
}
