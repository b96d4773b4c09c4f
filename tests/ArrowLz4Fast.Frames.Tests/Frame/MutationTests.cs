using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Fixed-seed random mutations of real frames (bit flips, byte overwrites, truncations, insertions, deletions):
    /// the direct path must either decode exactly what the reference decodes or throw <see cref="System.IO.InvalidDataException"/> (with its <see cref="Lz4FrameException"/>),
    /// never another exception, never a hang, never a write outside the destination.
    /// </summary>
    public class MutationTests
    {
        private const int MutantsPerSeed = 1500;

        public static IEnumerable<object[]> Seeds() => new[] { new object[] { 1 }, new object[] { 2 }, new object[] { 3 } };

        [Theory]
        [MemberData(nameof(Seeds))]
        public void Mutants_decode_to_the_reference_output_or_throw_InvalidDataException(int seed)
        {
            var random = new Random(seed);
            List<(byte[] Frame, int Length)> sources = SourceFrames(seed);
            int rejected = 0, accepted = 0;
            for (int n = 0; n < MutantsPerSeed; n++)
            {
                (byte[] frame, int length) = sources[random.Next(sources.Count)];
                byte[] mutant = Mutate(frame, random);
                var destination = new GuardedBuffer(length + random.Next(0, 64));

                bool done = false;
                int written = 0;
                Exception? error = Record.Exception(() => done = Lz4FrameDecoder.Decode(mutant, destination.Span, out _, out written) == Lz4FrameDecodeStatus.Done);

                destination.AssertGuardsIntact();
                if (error is not null)
                {
                    Assert.True(FrameErrors.Is(error), $"mutant {n} threw {error.GetType().Name}: {error.Message}");
                    rejected++;
                }
                else if (done)
                {
                    // Accepted: the reference decoder must agree byte for byte whenever it accepts the mutant too.
                    byte[]? reference = ReferenceDecode(mutant, written);
                    if (reference is not null)
                        Assert.True(reference.AsSpan().SequenceEqual(destination.Span.Slice(0, written)), $"mutant {n} decodes differently from K4os");
                    accepted++;
                }
            }
            Assert.True(rejected > MutantsPerSeed / 2, $"only {rejected} of {MutantsPerSeed} mutants were rejected");
            Assert.True(accepted > 0, "no mutant survived: the mutations never touched block data that decodes either way");
        }

        private static byte[]? ReferenceDecode(byte[] frame, int length)
        {
            try
            {
                var output = new byte[length];
                using var decoder = LZ4Frame.Decode(frame.AsMemory());
                return decoder.ReadManyBytes(output) == length ? output : null;
            }
            catch (Exception)
            {
                return null;
            }
        }

        private static List<(byte[], int)> SourceFrames(int seed)
        {
            var frames = new List<(byte[], int)>();
            byte[] payload = TestData.Mixed(300_000, seed);
            foreach (bool chain in new[] { true, false })
            foreach (bool checksums in new[] { false, true })
            {
                var settings = new LZ4EncoderSettings
                {
                    ChainBlocks = chain, BlockSize = 64 * 1024, ContentChecksum = checksums, BlockChecksum = checksums,
                    CompressionLevel = LZ4Level.L00_FAST,
                };
                frames.Add((TestData.K4osFrame(payload, settings, contentSize: checksums), payload.Length));
            }
            foreach (string file in new[] { "frames/cli_words1m_B4I_L1_fds_nocrc_bx_size.lz4", "frames/cli_text13_B4D_L9_fds_bx_size.lz4", "frames/py_rep65537_B4D_L0_size.lz4", "frames/cli_random256k_B4D_L1_bx_size.lz4" })
            {
                byte[] frame = File.ReadAllBytes(Corpus.Committed(file));
                frames.Add((frame, Corpus.Sidecar(Corpus.Committed(file)).GetProperty("length").GetInt32()));
            }
            return frames;
        }

        private static byte[] Mutate(byte[] frame, Random random)
        {
            byte[] m = (byte[])frame.Clone();
            // Favour the header and the first blocks, where structure lives.
            int At() => random.Next(2) == 0 ? random.Next(Math.Min(m.Length, 64)) : random.Next(m.Length);
            switch (random.Next(6))
            {
                case 0:
                    m[At()] ^= (byte)(1 << random.Next(8));
                    return m;
                case 1:
                    m[At()] = (byte)random.Next(256);
                    return m;
                case 2:
                    return m.AsSpan(0, random.Next(m.Length)).ToArray();
                case 3:
                {
                    int at = At();
                    var inserted = new byte[m.Length + 1 + random.Next(8)];
                    m.AsSpan(0, at).CopyTo(inserted);
                    random.NextBytes(inserted.AsSpan(at, inserted.Length - m.Length));
                    m.AsSpan(at).CopyTo(inserted.AsSpan(at + inserted.Length - m.Length));
                    return inserted;
                }
                case 4:
                {
                    int at = At();
                    int count = Math.Min(m.Length - at, 1 + random.Next(8));
                    var deleted = new byte[m.Length - count];
                    m.AsSpan(0, at).CopyTo(deleted);
                    m.AsSpan(at + count).CopyTo(deleted.AsSpan(at));
                    return deleted;
                }
                default:
                    // A plausible but wrong block size: the classic way to make a decoder over-read.
                    int offset = At() & ~3;
                    if (offset + 4 <= m.Length)
                        BitConverter.TryWriteBytes(m.AsSpan(offset), random.Next(2) == 0 ? random.Next(1 << 17) : random.Next() | int.MinValue);
                    return m;
            }
        }
    }
}
