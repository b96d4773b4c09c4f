using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameStream"/> decoding with read-ahead (parallelism in the options): the same bytes, the same
    /// exception at the same point, as the span decoder and the sequential stream.
    /// </summary>
    public class FrameStreamReadAheadTests
    {
        /// <summary>Read-ahead that triggers on any two buffered blocks.</summary>
        public static readonly Lz4FrameDecoderOptions Degree2 = new(verifyChecksums: true, new Lz4Parallelism(2, 1));
        public static readonly Lz4FrameDecoderOptions Degree8 = new(verifyChecksums: true, new Lz4Parallelism(8, 1));

        public static IEnumerable<object[]> Files() => FrameStreams.SuiteFrameFiles().Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(Files))]
        public void Every_corpus_frame_reads_with_read_ahead_as_the_span_decoder_decodes(string file)
        {
            byte[] input = File.ReadAllBytes(file);
            FrameOutcome expected = FrameStreams.Reference(input);
            int seed = input.Length;
            using (var stream = new Lz4FrameStream(new MemoryStream(input), Degree2))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed, async: false), "degree 2, sync");
            using (var stream = new Lz4FrameStream(new MemoryStream(input), Degree8))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed + 1, async: true), "degree 8, async");
            using (var stream = new Lz4FrameStream(new TrickleStream(input, seed, 300_000), Degree2))
                FrameStreams.AssertSame(expected, FrameStreams.ReadAll(stream, seed + 2, async: true), "degree 2, async, trickled input");
            var unverified = new Lz4FrameDecoderOptions(verifyChecksums: false, new Lz4Parallelism(3, 1));
            using (var stream = new Lz4FrameStream(new MemoryStream(input), unverified))
                FrameStreams.AssertSame(FrameStreams.Reference(input, unverified), FrameStreams.ReadAll(stream, seed + 3, async: false), "degree 3, checksums off");
        }

        /// <summary>Several MiB of decoded corpus data (the real buffers the corpus frames hold), topped up with mixed data.</summary>
        internal static byte[] CorpusPayload(int length)
        {
            var payload = new MemoryStream();
            foreach (string file in FrameStreams.AllFrameFiles())
            {
                if (payload.Length >= length)
                    break;
                FrameOutcome outcome = FrameStreams.Reference(File.ReadAllBytes(file));
                if (outcome.Error is null)
                    payload.Write(outcome.Output, 0, (int)Math.Min(outcome.Output.Length, length - payload.Length));
            }
            if (payload.Length < length)
                payload.Write(TestData.Mixed(length - (int)payload.Length, seed: 12));
            return payload.ToArray();
        }

        public static IEnumerable<object[]> LargeFrames()
        {
            foreach (int blockSize in new[] { 4 << 20, 64 << 10 })
            {
                foreach (bool checksums in new[] { false, true })
                {
                    foreach (bool contentSize in new[] { false, true })
                        yield return new object[] { blockSize, checksums, contentSize };
                }
            }
        }

        [Theory]
        [MemberData(nameof(LargeFrames))]
        public void Large_independent_block_frames_read_with_read_ahead_in_any_sizes(int blockSize, bool checksums, bool contentSize)
        {
            byte[] payload = CorpusPayload(13 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: blockSize, contentChecksum: checksums, blockChecksum: checksums, contentSize: contentSize));
            // Two frames back to back: the read-ahead state starts over at a frame.
            byte[] input = frame.Concat(frame).ToArray();
            byte[] expected = payload.Concat(payload).ToArray();
            for (int seed = 0; seed < 4; seed++)
            {
                Lz4FrameDecoderOptions options = seed % 2 == 0 ? Degree2 : Degree8;
                Stream inner = seed < 2 ? new MemoryStream(input) : new TrickleStream(input, seed, 3 << 20);
                using var stream = new Lz4FrameStream(inner, options);
                FrameOutcome actual = FrameStreams.ReadAll(stream, seed, async: seed % 3 == 1);
                Assert.Null(actual.Error);
                Assert.True(expected.AsSpan().SequenceEqual(actual.Output), $"seed {seed}: {actual.Output.Length} bytes, expected {expected.Length}");
            }
        }

        [Fact]
        public void Read_ahead_writes_only_the_callers_slice_and_whatever_it_held()
        {
            byte[] payload = CorpusPayload(10 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 1 << 20, blockChecksum: true));
            var random = new Random(5);
            foreach (byte fill in new byte[] { 0x00, 0xA5, 0xFF })
            {
                using var stream = new Lz4FrameStream(new MemoryStream(frame), Degree8);
                var output = new MemoryStream();
                while (true)
                {
                    int size = FrameStreams.RandomSize(random, 6 << 20);
                    var buffer = new byte[size + 64];
                    buffer.AsSpan().Fill(fill);
                    int n = stream.Read(buffer.AsSpan(32, size));
                    Assert.True(buffer.AsSpan(0, 32).ToArray().All(b => b == fill) && buffer.AsSpan(32 + size).ToArray().All(b => b == fill), $"a read of {size} wrote outside its slice");
                    if (n == 0)
                        break;
                    output.Write(buffer, 32, n);
                }
                Assert.True(payload.AsSpan().SequenceEqual(output.ToArray()), $"buffers filled with {fill:X2}");
            }
        }

        [Fact]
        public void Short_blocks_read_with_read_ahead()
        {
            // The parallel encoder cuts a source of one block into equal pieces: short blocks, several to a block
            // maximum, which read-ahead places a block maximum apart in the caller's buffer and moves together.
            byte[] payload = CorpusPayload(3 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20, contentChecksum: true, parallelism: new Lz4Parallelism(4, 1)));
            var reader = new Lz4FrameReader(frame);
            int blocks = 0;
            while (reader.Read())
                blocks += reader.TokenType == Lz4FrameTokenType.Block ? 1 : 0;
            Assert.True(blocks >= 2, $"{blocks} blocks");
            byte[] input = frame.Concat(frame).Concat(frame).Concat(frame).ToArray();
            byte[] expected = payload.Concat(payload).Concat(payload).Concat(payload).ToArray();
            foreach (int read in new[] { 16 << 20, 9 << 20, 5 << 20, 100_000 })
            {
                using var stream = new Lz4FrameStream(new MemoryStream(input), Degree8);
                var buffer = new byte[read];
                var output = new MemoryStream();
                int n;
                while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
                    output.Write(buffer, 0, n);
                Assert.True(expected.AsSpan().SequenceEqual(output.ToArray()), $"reads of {read}");
            }
        }

        [Theory]
        [InlineData(4 << 20, true)]
        [InlineData(4 << 20, false)]
        [InlineData(64 << 10, true)]
        [InlineData(64 << 10, false)]
        public void A_corrupt_block_in_the_middle_is_reported_after_the_bytes_before_it(int blockSize, bool blockChecksum)
        {
            byte[] payload = CorpusPayload(12 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: blockSize, blockChecksum: blockChecksum, contentChecksum: true));
            int corrupt = payload.Length / blockSize / 2;
            (int at, int length) = BlockData(frame, corrupt);
            // Literal-length bytes of 255 to its end: the block reads past its input.
            frame.AsSpan(at, length).Fill(0xFF);
            FrameOutcome expected = FrameStreams.Reference(frame);
            Assert.NotNull(expected.Error);

            foreach (Lz4FrameDecoderOptions options in new[] { default, Degree2, Degree8 })
            {
                for (int seed = 0; seed < 3; seed++)
                {
                    using var stream = new Lz4FrameStream(new MemoryStream(frame), options);
                    FrameOutcome actual = FrameStreams.ReadAll(stream, seed, async: seed == 1);
                    FrameStreams.AssertSame(expected, actual, $"degree {options.Parallelism.MaxDegreeOfParallelism}, seed {seed}");
                    // The bytes before the block were served, and none of it or after it.
                    Assert.True(actual.Output.Length <= corrupt * blockSize);
                    Assert.True(payload.AsSpan(0, actual.Output.Length).SequenceEqual(actual.Output));
                }

                // Reads of a block each, smaller than it or larger than two: every byte before the bad block comes out first.
                foreach (int read in new[] { blockSize, blockSize / 3, blockSize * 2 + 100 })
                {
                    using var stream = new Lz4FrameStream(new MemoryStream(frame), options);
                    var buffer = new byte[read];
                    var output = new MemoryStream();
                    Exception? error = null;
                    try
                    {
                        int n;
                        while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
                            output.Write(buffer, 0, n);
                    }
                    catch (InvalidDataException e)
                    {
                        error = e;
                    }
                    FrameStreams.AssertSame(expected, new FrameOutcome(output.ToArray(), error), $"reads of {read}");
                    // Reads of a block each end where it starts (a read that reaches it with room left throws, as the sequential stream does).
                    if (read == blockSize)
                        Assert.Equal(corrupt * (long)blockSize, output.Length);
                    Assert.True(payload.AsSpan(0, (int)output.Length).SequenceEqual(output.ToArray()));
                    // And again on every read after it.
                    Exception again = Assert.Throws<InvalidDataException>(() => stream.Read(buffer, 0, buffer.Length));
                    Assert.Equal(error!.Message, again.Message);
                }
            }
        }

        [Theory]
        [InlineData(4 << 20)]
        [InlineData(64 << 10)]
        public void A_truncated_inner_stream_is_reported_after_the_bytes_before_the_cut(int blockSize)
        {
            byte[] payload = CorpusPayload(10 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: blockSize, contentChecksum: true));
            int cutBlock = payload.Length / blockSize / 2;
            byte[] cut = frame.AsSpan(0, BlockData(frame, cutBlock).Offset + 100).ToArray();
            FrameOutcome expected = FrameStreams.Reference(cut);
            Assert.NotNull(expected.Error);
            foreach (Lz4FrameDecoderOptions options in new[] { Degree2, Degree8 })
            {
                for (int seed = 0; seed < 3; seed++)
                {
                    Stream inner = seed == 2 ? new TrickleStream(cut, seed, 1 << 20) : new MemoryStream(cut);
                    using var stream = new Lz4FrameStream(inner, options);
                    FrameOutcome actual = FrameStreams.ReadAll(stream, seed, async: seed == 1);
                    FrameStreams.AssertSame(expected, actual, $"seed {seed}");
                    Assert.True(actual.Output.Length <= cutBlock * blockSize);
                    Assert.True(payload.AsSpan(0, actual.Output.Length).SequenceEqual(actual.Output));
                }
                using (var stream = new Lz4FrameStream(new MemoryStream(cut), options))
                {
                    var buffer = new byte[blockSize / 2];
                    long total = 0;
                    int n;
                    Assert.Throws<InvalidDataException>(() =>
                    {
                        while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
                            total += n;
                    });
                    Assert.Equal(cutBlock * (long)blockSize, total);
                }
            }
        }

        [Fact]
        public void Read_ahead_decodes_blocks_on_several_threads()
        {
            byte[] payload = CorpusPayload(16 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20));
            using var events = new FramesEvents();
            foreach (int read in new[] { 4 << 20, 80 << 10 })
            {
                events.Clear();
                Assert.True(payload.AsSpan().SequenceEqual(ReadAtDegree2(frame, read)));
                IReadOnlyList<int[]> batches = events.OnThisThread(FramesEvents.ParallelDecode);
                // Blocks go ahead only when the input buffer (two block maximums here) holds two whole ones; a third
                // joins when it is the last whole one buffered.
                Assert.True(batches.Count >= 1, $"reads of {read}: no read-ahead");
                Assert.All(batches, b => Assert.InRange(b[1], 2, 3));
            }

            // Sequential options (the default), and linked blocks, never go ahead.
            events.Clear();
            using (var stream = new Lz4FrameStream(new MemoryStream(frame), CompressionMode.Decompress))
                stream.CopyTo(Stream.Null);
            byte[] linked = TestData.K4osFrame(payload, new K4os.Compression.LZ4.Streams.LZ4EncoderSettings { ChainBlocks = true, BlockSize = 4 << 20 }, contentSize: false);
            using (var stream = new Lz4FrameStream(new MemoryStream(linked), Degree2))
                stream.CopyTo(Stream.Null);
            Assert.Empty(events.OnThisThread(FramesEvents.ParallelDecode));
        }

        [Theory]
        [InlineData(4 << 20)]
        [InlineData(80 << 10)]
        public void The_last_whole_block_buffered_joins_the_batch_instead_of_being_decoded_alone(int read)
        {
            // Three 4 MiB blocks compress to far less than the input buffer (two block maximums), so the whole frame is
            // buffered at once: two blocks at degree 2, and the third, followed by the end mark, joins them.
            byte[] payload = CorpusPayload(12 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 4 << 20));
            Assert.True(frame.Length < 8 << 20, $"the frame is {frame.Length} bytes");
            using var events = new FramesEvents();
            Assert.True(payload.AsSpan().SequenceEqual(ReadAtDegree2(frame, read)));
            IReadOnlyList<int[]> batches = events.OnThisThread(FramesEvents.ParallelDecode);
            Assert.Single(batches);
            Assert.Equal(new[] { 3, 3 }, batches[0]);
        }

        /// <summary>Reads <paramref name="frame"/> through a stream with read-ahead at degree 2, <paramref name="read"/> bytes a read.</summary>
        private static byte[] ReadAtDegree2(byte[] frame, int read)
        {
            using var stream = new Lz4FrameStream(new MemoryStream(frame), new Lz4FrameDecoderOptions(parallelism: new Lz4Parallelism(2)));
            var buffer = new byte[read];
            var output = new MemoryStream();
            int n;
            while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
                output.Write(buffer, 0, n);
            return output.ToArray();
        }

        [Fact]
        public void Blocks_below_the_minimum_parallel_length_are_not_read_ahead()
        {
            byte[] payload = CorpusPayload(4 << 20);
            byte[] frame = Encode(payload, new Lz4FrameEncoderOptions(blockSize: 64 << 10));
            using var events = new FramesEvents();
            // Two 64 KiB blocks are less than the default minimum of 256 KiB: 80 KiB reads never go ahead.
            using (var stream = new Lz4FrameStream(new MemoryStream(frame), new Lz4FrameDecoderOptions(parallelism: new Lz4Parallelism(2))))
            {
                var buffer = new byte[80 << 10];
                while (stream.Read(buffer, 0, buffer.Length) > 0)
                {
                }
            }
            Assert.Empty(events.OnThisThread(FramesEvents.ParallelDecode));
        }

        private static byte[] Encode(byte[] payload, Lz4FrameEncoderOptions options)
        {
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
            Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written, options));
            return frame.AsSpan(0, written).ToArray();
        }

        /// <summary>Where block <paramref name="index"/>'s data is in a one-frame input.</summary>
        internal static (int Offset, int Length) BlockData(byte[] frame, int index)
        {
            var reader = new Lz4FrameReader(frame);
            int block = 0;
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.Block && block++ == index)
                    return (reader.TokenStartIndex + 4, reader.BlockData.Length);
            }
            throw new ArgumentOutOfRangeException(nameof(index));
        }
    }
}
