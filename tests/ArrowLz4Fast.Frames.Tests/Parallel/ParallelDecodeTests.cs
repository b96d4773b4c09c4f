using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Block-parallel decode must give exactly the sequential result on every input: the same status, consumed and
    /// written counts and bytes, or the same exception with the same message and offset. Parallel decode is forced on
    /// (minimum length 1) with 2 and 8 threads.
    /// </summary>
    public class ParallelDecodeTests
    {
        internal static readonly Lz4FrameDecoderOptions Sequential = new(verifyChecksums: true, Lz4Parallelism.Sequential);

        internal static IEnumerable<Lz4FrameDecoderOptions> ParallelOptions()
        {
            yield return new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(2, 1));
            yield return new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(8, 1));
            yield return new Lz4FrameDecoderOptions(verifyChecksums: false, new Lz4Parallelism(3, 1));
        }

        public static IEnumerable<object[]> CorpusFrames() =>
            Corpus.DataFiles("frames").Select(f => new object[] { f });

        public static IEnumerable<object[]> MalformedFrames() =>
            Corpus.DataFiles("malformed").Select(f => new object[] { f });

        [Fact]
        public void The_corpus_has_independent_multi_block_frames_to_decode_in_parallel()
        {
            int independent = Corpus.DataFiles("frames").Count(f => CorpusBuffers.IndependentBlocks(File.ReadAllBytes(Corpus.Committed(f))) >= 2);
            Assert.True(independent >= 10, $"only {independent} independent multi-block frames");
        }

        [Theory]
        [MemberData(nameof(CorpusFrames))]
        public void Every_corpus_frame_decodes_in_parallel_exactly_as_sequentially_into_every_destination_size(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            JsonElement sidecar = Corpus.Sidecar(Corpus.Committed(file));
            int length = sidecar.TryGetProperty("length", out JsonElement l) ? l.GetInt32() : 1 << 20;
            foreach (int size in new[] { length, length + 1, length - 1, length + 100_003, length / 2, 65536 * 3, 0 }.Where(s => s >= 0).Distinct())
                AssertSameAsSequential(frame, size);
        }

        [Theory]
        [MemberData(nameof(MalformedFrames))]
        public void Every_malformed_frame_fails_in_parallel_exactly_as_sequentially(string file)
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
            foreach (int size in new[] { 0, 13, 65536, 65536 * 3, 1 << 20, 6 << 20 })
                AssertSameAsSequential(frame, size);
        }

        [Theory]
        [InlineData(65536, false, false)]
        [InlineData(65536, true, true)]
        [InlineData(262144, false, true)]
        [InlineData(1048576, true, false)]
        public void Frames_of_the_package_writer_decode_in_parallel_exactly_as_sequentially(int blockSize, bool contentChecksum, bool blockChecksum)
        {
            foreach (byte[] payload in Payloads())
            {
                var options = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum, blockChecksum);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int length, options));
                byte[] encoded = frame.AsSpan(0, length).ToArray();
                var output = new byte[payload.Length];
                Assert.True(Lz4FrameDecoder.TryDecode(encoded, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(4, 1))));
                Assert.Equal(payload.Length, written);
                Assert.True(payload.AsSpan().SequenceEqual(output));
                foreach (int size in new[] { payload.Length - 1, payload.Length - blockSize, payload.Length + 7 }.Where(s => s >= 0))
                    AssertSameAsSequential(encoded, size);
            }
        }

        [Fact]
        public void Frames_whose_blocks_are_not_full_fall_back_to_sequential_at_the_first_short_block()
        {
            var random = new Random(12);
            for (int round = 0; round < 40; round++)
            {
                byte[] payload = TestData.Mixed(random.Next(200_000, 900_000), round);
                // Blocks of random lengths: some full (64 KiB), some short, in any order; some stored uncompressed.
                var blocks = new List<(int Offset, int Length, bool Raw)>();
                for (int offset = 0; offset < payload.Length;)
                {
                    int length = Math.Min(payload.Length - offset, random.Next(4) == 0 ? random.Next(1, 65536) : 65536);
                    blocks.Add((offset, length, random.Next(6) == 0));
                    offset += length;
                }
                byte[] frame = BuildFrame(payload, blocks, 65536, contentChecksum: round % 2 == 0, blockChecksum: round % 3 == 0);
                var output = new byte[payload.Length];
                Assert.True(Lz4FrameDecoder.TryDecode(frame, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(2, 1))));
                Assert.Equal(payload.Length, written);
                Assert.True(payload.AsSpan().SequenceEqual(output), $"round {round}");
                foreach (int size in new[] { payload.Length, payload.Length - 1, payload.Length / 3, payload.Length + 65536 })
                    AssertSameAsSequential(frame, size);
            }
        }

        /// <summary>
        /// A frame with more blocks than its content fills at the block maximum is decoded as equal pieces (the content
        /// over the block count, rounded up to 64 bytes): every piece in parallel when that is what the frame holds, and
        /// exactly the sequential result whatever it holds (a piece one 64-byte step longer or shorter, raw pieces,
        /// checksums, destinations of other sizes).
        /// </summary>
        [Fact]
        public void Frames_cut_into_equal_pieces_decode_every_piece_in_parallel_and_others_as_sequentially()
        {
            using var events = new FramesEvents();
            var random = new Random(56);
            int rounds = 0;
            foreach (int blockMaximum in new[] { 65536, 262144, 1048576, 4194304 })
            foreach (int pieces in new[] { 2, 3, 4, 8 })
            {
                int length = Math.Min(blockMaximum * 2 - 1, pieces * 131_072 - random.Next(64 * 1024));
                length = Math.Max(length, 70_000);
                int stride = (int)(((length + pieces - 1L) / pieces + 63) & ~63L);
                if (stride > blockMaximum || (pieces - 1L) * stride >= length || (length + blockMaximum - 1) / blockMaximum >= pieces)
                    continue;
                byte[] payload = TestData.Mixed(length, pieces * 31 + blockMaximum);
                for (int variant = 0; variant < 4; variant++)
                {
                    // 0: equal pieces; 1: some raw; 2: the first piece 64 bytes longer; 3: the second 64 bytes shorter.
                    var blocks = new List<(int Offset, int Length, bool Raw)>();
                    for (int offset = 0, k = 0; offset < length; k++)
                    {
                        int size = stride + (variant == 2 && k == 0 ? 64 : 0) - (variant == 3 && k == 1 ? 64 : 0);
                        size = Math.Min(size, length - offset);
                        blocks.Add((offset, size, variant == 1 && random.Next(2) == 0));
                        offset += size;
                    }
                    byte[] frame = BuildFrame(payload, blocks, blockMaximum, contentChecksum: variant % 2 == 0, blockChecksum: pieces % 2 == 0);

                    var output = new byte[length];
                    long kept = events.BlocksKeptOnThisThread();
                    Assert.True(Lz4FrameDecoder.TryDecode(frame, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(2, 1))));
                    Assert.Equal(length, written);
                    Assert.True(payload.AsSpan().SequenceEqual(output), $"{blockMaximum} / {pieces} pieces / variant {variant}");
                    long keptNow = events.BlocksKeptOnThisThread() - kept;
                    if (variant < 2)
                        Assert.Equal(blocks.Count, keptNow); // every piece decoded in parallel, none fell back
                    else
                        Assert.True(keptNow < blocks.Count, $"{keptNow} of {blocks.Count} blocks kept from a frame that is not equal pieces");
                    foreach (int size in new[] { length, length - 1, length + 1, length + 65536, length - stride })
                        AssertSameAsSequential(frame, size);
                    rounds++;
                }
            }
            Assert.True(rounds >= 40, $"only {rounds} frames");
        }

        /// <summary>The package's writer cuts a source of one block from 256 KiB into equal pieces: they decode in parallel, every one.</summary>
        [Theory]
        [InlineData(262144, 262144)]
        [InlineData(1048576, 1048576 - 1)]
        [InlineData(1048576, 300_001)]
        [InlineData(1048576, 1048576)]
        [InlineData(4194304, 4194304 - 5)]
        public void One_block_sources_the_writer_cut_into_pieces_decode_every_piece_in_parallel(int blockSize, int length)
        {
            using var events = new FramesEvents();
            foreach (bool contentSize in new[] { false, true })
            {
                byte[] payload = TestData.Mixed(length, length);
                var options = new Lz4FrameEncoderOptions(blockSize, 0, contentChecksum: true, blockChecksum: false, contentSize: contentSize);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(length, options)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int encodedLength, options));
                byte[] encoded = frame.AsSpan(0, encodedLength).ToArray();
                int blocks = CorpusBuffers.IndependentBlocks(encoded);
                Assert.True(blocks >= 2, $"{blocks} block(s)");

                var output = new byte[length];
                long kept = events.BlocksKeptOnThisThread();
                Assert.True(Lz4FrameDecoder.TryDecode(encoded, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(2, 1))));
                Assert.Equal(length, written);
                Assert.True(payload.AsSpan().SequenceEqual(output));
                Assert.Equal(blocks, events.BlocksKeptOnThisThread() - kept);
                foreach (int size in new[] { length - 1, length + 7, length + blockSize })
                    AssertSameAsSequential(encoded, size);
            }
        }

        [Fact]
        public void Mutated_independent_frames_give_the_sequential_result_byte_for_byte_and_error_for_error()
        {
            var random = new Random(34);
            var seeds = new List<byte[]>();
            foreach (bool checksums in new[] { false, true })
            {
                byte[] payload = TestData.Mixed(700_000, checksums ? 1 : 2);
                var options = new Lz4FrameEncoderOptions(65536, 0, checksums, checksums);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int length, options));
                seeds.Add(frame.AsSpan(0, length).ToArray());
            }
            {
                // A source of one block the writer cut into equal pieces, decoded at the piece stride.
                byte[] payload = TestData.Mixed(700_000, 3);
                var options = new Lz4FrameEncoderOptions(1048576, 0, true, true);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int length, options));
                seeds.Add(frame.AsSpan(0, length).ToArray());
            }
            seeds.AddRange(Corpus.DataFiles("frames").Select(f => File.ReadAllBytes(Corpus.Committed(f))).Where(f => CorpusBuffers.IndependentBlocks(f) >= 4).Take(6));

            int mutants = 0;
            foreach (byte[] seed in seeds)
            {
                for (int i = 0; i < 75; i++)
                {
                    byte[] mutant = (byte[])seed.Clone();
                    int flips = 1 + random.Next(3);
                    for (int f = 0; f < flips; f++)
                    {
                        int at = 7 + random.Next(mutant.Length - 7);
                        mutant[at] = random.Next(3) == 0 ? (byte)random.Next(256) : (byte)(mutant[at] ^ (1 << random.Next(8)));
                    }
                    AssertSameAsSequential(mutant, 700_000);
                    AssertSameAsSequential(mutant, 700_000 - 1 - random.Next(200_000));
                    mutants++;
                }
            }
            Assert.True(mutants >= 500);
        }

        /// <summary>Decodes <paramref name="frame"/> into <paramref name="size"/> bytes sequentially and with every parallel setting, and compares everything observable.</summary>
        internal static void AssertSameAsSequential(byte[] frame, int size)
        {
            Outcome expected = Decode(frame, size, Sequential);
            foreach (Lz4FrameDecoderOptions options in ParallelOptions())
            {
                Outcome expectedHere = !options.VerifyChecksums ? Decode(frame, size, new Lz4FrameDecoderOptions(verifyChecksums: false)) : expected;
                Outcome actual = Decode(frame, size, options);
                Assert.True(expectedHere.Equals(actual), $"{options.Parallelism}, verify checksums {options.VerifyChecksums}, destination {size}: sequential {expectedHere}, parallel {actual}");
            }
        }

        internal static Outcome Decode(byte[] frame, int size, Lz4FrameDecoderOptions options)
        {
            var destination = new GuardedBuffer(size);
            try
            {
                Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(frame, destination.Span, out int consumed, out int written, options);
                destination.AssertGuardsIntact();
                return new Outcome($"{status} consumed {consumed} written {written} sha {Hex.Sha256(destination.Span.Slice(0, written))}");
            }
            catch (Exception e) when (e is InvalidDataException or NotSupportedException)
            {
                destination.AssertGuardsIntact();
                long offset = e.InnerException is Lz4FrameException detail ? detail.Offset : -1;
                return new Outcome($"{e.GetType().Name} at {offset}: {e.Message}");
            }
        }


        /// <summary>An independent-block frame with the given block boundaries (a frame need not fill its blocks).</summary>
        internal static byte[] BuildFrame(byte[] payload, List<(int Offset, int Length, bool Raw)> blocks, int blockMaximum, bool contentChecksum, bool blockChecksum)
        {
            var output = new MemoryStream();
            var header = new byte[7];
            BinaryPrimitives.WriteUInt32LittleEndian(header, 0x184D2204);
            header[4] = (byte)(0x60 | (blockChecksum ? 0x10 : 0) | (contentChecksum ? 0x04 : 0));
            header[5] = (byte)((blockMaximum switch { 65536 => 4, 262144 => 5, 1048576 => 6, _ => 7 }) << 4);
            header[6] = (byte)(XXH32.DigestOf(header.AsSpan(4, 2)) >> 8);
            output.Write(header);
            var scratch = new byte[LZ4Codec.MaximumOutputSize(blockMaximum)];
            var field = new byte[4];
            foreach ((int offset, int length, bool raw) in blocks)
            {
                ReadOnlySpan<byte> block = payload.AsSpan(offset, length);
                int stored = raw ? -1 : LZ4Codec.Encode(block, scratch.AsSpan(0, Math.Min(scratch.Length, blockMaximum)));
                ReadOnlySpan<byte> data = stored > 0 ? scratch.AsSpan(0, stored) : block;
                BinaryPrimitives.WriteUInt32LittleEndian(field, (uint)data.Length | (stored > 0 ? 0u : 0x80000000u));
                output.Write(field);
                output.Write(data);
                if (blockChecksum)
                {
                    BinaryPrimitives.WriteUInt32LittleEndian(field, XXH32.DigestOf(data));
                    output.Write(field);
                }
            }
            BinaryPrimitives.WriteUInt32LittleEndian(field, 0);
            output.Write(field);
            if (contentChecksum)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(field, XXH32.DigestOf(payload));
                output.Write(field);
            }
            return output.ToArray();
        }

        internal static IEnumerable<byte[]> Payloads()
        {
            yield return TestData.Mixed(3_000_000, 5);
            yield return new byte[2_500_000];
            var random = new byte[1_200_000];
            new Random(8).NextBytes(random);
            yield return random;
            var sequence = new byte[8 * 300_001];
            for (int i = 0; i < 300_001; i++)
                BinaryPrimitives.WriteInt64LittleEndian(sequence.AsSpan(i * 8), i * 3L);
            yield return sequence;
        }

        internal readonly record struct Outcome(string Text)
        {
            public override string ToString() => Text.Length > 300 ? Text.Substring(0, 300) : Text;
        }
    }
}
