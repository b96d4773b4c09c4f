using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The package's fast-level block encoder against K4os <c>LZ4Codec.Encode</c>, which on 64-bit processes writes
    /// liblz4's <c>LZ4_compress_default</c> bytes: the same return value (length, or -1 when the output does not fit)
    /// and the same bytes for every real Arrow buffer of the corpus, every shape and length around the encoder's
    /// internal limits, every output capacity around the compressed size, and random inputs; nothing read or
    /// written outside the source and destination (guard pages).
    /// </summary>
    public class BlockEncoderTests
    {
        // The encoder has two position widths (16-bit under 64 KiB + 11, 32-bit above); 256 KiB and 1 MiB blocks take the
        // same 32-bit path as 4 MiB, and the frame encoder's block cutting is WriterTests' and the stream tests'.
        private static readonly int[] BlockSizes = { 64 * 1024, 4 * 1024 * 1024 };

        public static IEnumerable<object[]> CommittedFiles() =>
            Corpus.CommittedIpcFiles().Where(f => !f.Contains("zstd", StringComparison.Ordinal)).Select(f => new object[] { f });

#if !NETSTANDARD_SUITE
        // The two sweeps over real buffers and output capacities run in the net8.0 suite alone: the netstandard2.0
        // build's own code (its trailing-zero count, where a match ends) runs in every length, shape, random and level
        // case below, and the output limits have no code of that build's own.
        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public void Every_real_buffer_compresses_to_the_reference_bytes_at_every_block_size(string file)
        {
            Assert.True(Environment.Is64BitProcess, "the reference bytes are 64-bit liblz4's");
            int blocks = 0;
            foreach ((byte[] frame, int length, _) in CorpusBuffers.Of(file))
            {
                byte[] buffer = new byte[length];
                if (frame.Length > 0)
                    Assert.Equal(Lz4FrameDecodeStatus.Done, Lz4FrameDecoder.Decode(frame, buffer, out _, out _));
                foreach (int blockSize in BlockSizes)
                {
                    for (int offset = 0; offset < buffer.Length; offset += blockSize)
                    {
                        ReadOnlySpan<byte> block = buffer.AsSpan(offset, Math.Min(blockSize, buffer.Length - offset));
                        // The frame encoder's limit (one byte under the block) and a roomy one (LZ4 bound).
                        AssertSameAsReference(block, block.Length - 1);
                        AssertSameAsReference(block, LZ4Codec.MaximumOutputSize(block.Length));
                        blocks++;
                    }
                }
            }
            Assert.True(blocks > 0 || file.Contains("empty", StringComparison.Ordinal), $"{file} has no buffer");
        }
#endif

        /// <summary>
        /// Inputs under 2 KiB run on a table the thread keeps between calls, with positions that continue from call
        /// to call until they would overflow 16 bits: every real buffer of the corpus, cut into short pieces and
        /// encoded one after the other on this thread (so each call starts on the entries of the calls before it, the
        /// positions wrap many times, and each piece also follows itself, whose stale entries hash and compare equal),
        /// must give a fresh table's bytes: K4os <c>LZ4Codec.Encode</c>'s, which zeroes its table per call.
        /// </summary>
        [Fact]
        public void Short_inputs_on_the_kept_table_give_a_fresh_tables_bytes()
        {
            var pieces = new List<byte[]>();
            foreach (string file in CommittedFiles().Select(f => (string)f[0]))
            {
                foreach ((byte[] frame, int length, _) in CorpusBuffers.Of(file))
                {
                    byte[] buffer = new byte[length];
                    if (frame.Length > 0)
                        Assert.Equal(Lz4FrameDecodeStatus.Done, Lz4FrameDecoder.Decode(frame, buffer, out _, out _));
                    // Lengths from 1 to 2,047 in turn, so the sums at which positions wrap fall everywhere.
                    for (int at = 0, n = 1 + (pieces.Count % 2047); at < buffer.Length; at += n, n = 1 + (pieces.Count % 2047))
                        pieces.Add(buffer.AsSpan(at, Math.Min(n, buffer.Length - at)).ToArray());
                }
            }
            Assert.True(pieces.Count > 10_000, $"{pieces.Count} pieces");
            var random = new Random(44);
            long wraps = 0, total = 0;
            for (int i = 0; i < pieces.Count; i++)
            {
                byte[] piece = pieces[i];
                AssertSameAsReference(piece, LZ4Codec.MaximumOutputSize(piece.Length));
                // The same bytes again right after, and now and then into a destination too short for them.
                AssertSameAsReference(piece, random.Next(4) == 0 ? Math.Max(0, piece.Length / 2) : piece.Length - 1);
                total += 2L * piece.Length;
            }
            wraps = total / 65_535;
            Assert.True(wraps > 100, $"{total} bytes encoded: the positions wrapped about {wraps} times");
        }

        public static IEnumerable<object[]> Shapes() => ShapeNames.Select(s => new object[] { s });

        private static readonly string[] ShapeNames = { "zeros", "random", "mixed", "period3", "period13", "text", "ramp32", "sparse" };

        [Theory]
        [MemberData(nameof(Shapes))]
        public void Every_length_near_the_encoders_limits_matches_the_reference(string shape)
        {
            var lengths = new List<int>();
            for (int n = 0; n <= 300; n++)
                lengths.Add(n);
            // 64 KiB + 11 switches 16-bit to 32-bit positions; 64 KiB + 1 is the first distance that cannot be coded.
            for (int n = 65_500; n <= 65_600; n++)
                lengths.Add(n);
            foreach (int n in new[] { 4095, 4096, 4097, 131_071, 131_072, 131_073, 262_144, 1 << 20, (1 << 20) + 5 })
                lengths.Add(n);
            foreach (int n in lengths)
            {
                byte[] source = Make(shape, n, seed: n);
                AssertSameAsReference(source, Math.Max(0, n - 1));
                AssertSameAsReference(source, LZ4Codec.MaximumOutputSize(n));
            }
        }

#if !NETSTANDARD_SUITE
        [Theory]
        [MemberData(nameof(Shapes))]
        public void Every_capacity_around_the_compressed_size_gives_the_reference_result(string shape)
        {
            foreach (int n in new[] { 1, 12, 13, 14, 20, 64, 255, 256, 270, 1000, 5000, 65_546, 65_547, 70_000, 300_000 })
            {
                byte[] source = Make(shape, n, seed: 7 * n);
                byte[] roomy = new byte[LZ4Codec.MaximumOutputSize(n)];
                int size = LZ4Codec.Encode(source, roomy, LZ4Level.L00_FAST);
                Assert.True(size > 0);
                var capacities = new SortedSet<int> { 0, 1, 2, size - 16, size - 2, size - 1, size, size + 1, size + 8, n - 1, n, n + 1 };
                for (int c = 0; c <= Math.Min(n + 40, 300); c++)
                    capacities.Add(c);
                foreach (int capacity in capacities.Where(c => c >= 0))
                    AssertSameAsReference(source, capacity);
            }
        }
#endif

        [Fact]
        public void Random_inputs_and_capacities_match_the_reference()
        {
            var random = new Random(20261125);
            for (int i = 0; i < 1500; i++)
            {
                int n = random.Next(4) == 0 ? random.Next(0, 300) : random.Next(0, 300_000);
                byte[] source = Make(ShapeNames[random.Next(ShapeNames.Length)], n, random.Next());
                // Splice in copies of earlier bytes at random distances, near and beyond 64 KiB.
                for (int k = random.Next(8); k > 0 && n > 100; k--)
                {
                    int length = random.Next(4, Math.Min(n / 2, 5000));
                    int from = random.Next(0, n - length);
                    int to = random.Next(0, n - length);
                    Buffer.BlockCopy(source, from, source, to, length);
                }
                int capacity = random.Next(3) switch
                {
                    0 => Math.Max(0, n - 1),
                    1 => LZ4Codec.MaximumOutputSize(n),
                    _ => random.Next(0, LZ4Codec.MaximumOutputSize(n) + 1),
                };
                AssertSameAsReference(source, capacity);
            }
        }

        [Theory]
        [InlineData(LZ4Level.L00_FAST)]
        [InlineData((LZ4Level)1)]
        [InlineData((LZ4Level)2)]
        [InlineData(LZ4Level.L03_HC)]
        [InlineData(LZ4Level.L09_HC)]
        [InlineData(LZ4Level.L12_MAX)]
        public void Every_level_gives_the_reference_bytes(LZ4Level level)
        {
            byte[] source = TestData.Mixed(300_000, 5);
            foreach (int n in new[] { 100, 65_000, 300_000 })
            {
                byte[] expected = new byte[n - 1];
                byte[] actual = new byte[n - 1];
                int want = LZ4Codec.Encode(source.AsSpan(0, n), expected, level);
                Assert.Equal(want, Lz4BlockEncoder.Encode(source.AsSpan(0, n), actual, level));
                Assert.True(want < 0 || expected.AsSpan(0, want).SequenceEqual(actual.AsSpan(0, want)));
            }
        }

        [Fact]
        public unsafe void Nothing_is_read_past_the_source_or_written_past_the_destination()
        {
            if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux) || !Environment.Is64BitProcess)
                return;
            var random = new Random(3);
            foreach (string shape in ShapeNames)
            {
                foreach (int n in new[] { 1, 13, 40, 100, 101, 117, 1000, 4096, 65_546, 65_547, 100_000 })
                {
                    foreach (byte[] data in GuardCases(shape, n, random.Next()))
                    {
                    byte[] roomy = new byte[LZ4Codec.MaximumOutputSize(n)];
                    int size = LZ4Codec.Encode(data, roomy, LZ4Level.L00_FAST);
                    foreach (int capacity in new[] { size, size - 1, n - 1, LZ4Codec.MaximumOutputSize(n) }.Where(c => c > 0).Distinct())
                    {
                        // Source and destination each end where an inaccessible page begins: a read or write past
                        // them faults and takes the test process down.
                        using var source = new PageGuardedMemory(n);
                        using var destination = new PageGuardedMemory(capacity);
                        data.CopyTo(new Span<byte>(source.Pointer, n));
                        int written = Lz4BlockEncoder.Encode(source.Pointer, n, destination.Pointer, capacity, LZ4Level.L00_FAST);
                        Assert.Equal(size <= capacity ? size : -1, written);
                        if (written > 0)
                            Assert.True(roomy.AsSpan(0, size).SequenceEqual(new ReadOnlySpan<byte>(destination.Pointer, written)));
                    }
                    }
                }
            }
        }

        /// <summary>
        /// The input as made, and with a short match placed 12-44 bytes before its end (a copy of its first bytes):
        /// the literal run before such a match ends right where the wide literal copy must not read on.
        /// </summary>
        private static IEnumerable<byte[]> GuardCases(string shape, int n, int seed)
        {
            byte[] data = Make(shape, n, seed);
            yield return data;
            for (int fromEnd = 12; fromEnd <= 44 && n >= 64; fromEnd++)
            {
                byte[] copy = (byte[])data.Clone();
                Buffer.BlockCopy(copy, 0, copy, n - fromEnd, 8);
                yield return copy;
            }
        }

        [Fact]
        public void Compressed_blocks_decode_back_to_the_source()
        {
            foreach (string shape in ShapeNames)
            {
                foreach (int n in new[] { 13, 1000, 65_547, 262_144 })
                {
                    byte[] source = Make(shape, n, n);
                    byte[] compressed = new byte[LZ4Codec.MaximumOutputSize(n)];
                    int size = Lz4BlockEncoder.Encode(source, compressed, LZ4Level.L00_FAST);
                    byte[] back = new byte[n];
                    Assert.Equal(n, Lz4BlockDecoder.Decode(compressed.AsSpan(0, size), back, 0));
                    Assert.True(source.AsSpan().SequenceEqual(back), $"{shape}, {n} bytes");
                }
            }
        }

        private static void AssertSameAsReference(ReadOnlySpan<byte> source, int capacity)
        {
            var expected = new GuardedBuffer(capacity);
            var actual = new GuardedBuffer(capacity);
            int want = LZ4Codec.Encode(source, expected.Span, LZ4Level.L00_FAST);
            int got = Lz4BlockEncoder.Encode(source, actual.Span, LZ4Level.L00_FAST);
            Assert.True(want == got, $"{source.Length} bytes into {capacity}: reference {want}, ours {got}");
            if (want > 0)
                Assert.True(expected.Span.Slice(0, want).SequenceEqual(actual.Span.Slice(0, got)), $"{source.Length} bytes into {capacity}: bytes differ");
            actual.AssertGuardsIntact();
        }

        private static byte[] Make(string shape, int n, int seed)
        {
            var random = new Random(seed);
            byte[] data = new byte[n];
            switch (shape)
            {
                case "zeros":
                    break;
                case "random":
                    random.NextBytes(data);
                    break;
                case "mixed":
                    return TestData.Mixed(n, seed);
                case "period3":
                case "period13":
                    int period = shape == "period3" ? 3 : 13;
                    for (int i = 0; i < n; i++)
                        data[i] = (byte)((i % period) * 37);
                    break;
                case "text":
                    string[] words = { "arrow ", "lz4 ", "frame ", "block ", "buffer ", "column ", "batch " };
                    for (int i = 0; i < n;)
                    {
                        string word = words[random.Next(words.Length)];
                        for (int j = 0; j < word.Length && i < n; j++)
                            data[i++] = (byte)word[j];
                    }
                    break;
                case "ramp32":
                    for (int i = 0; i + 4 <= n; i += 4)
                        BitConverter.TryWriteBytes(data.AsSpan(i), (i / 4) + seed);
                    break;
                case "sparse":
                    for (int i = 0; i < n / 50; i++)
                        data[random.Next(n)] = (byte)random.Next(1, 256);
                    break;
                default:
                    throw new ArgumentException(shape);
            }
            return data;
        }

        /// <summary>Memory whose last usable byte is followed by a page mapped with no access (Linux mmap/mprotect).</summary>
        private sealed unsafe class PageGuardedMemory : IDisposable
        {
            private const int ProtNone = 0, ProtReadWrite = 3, MapPrivateAnonymous = 0x02 | 0x20;
            private readonly IntPtr _mapping;
            private readonly nuint _mappingLength;

            public PageGuardedMemory(int length)
            {
                nuint page = (nuint)Environment.SystemPageSize;
                nuint usable = ((nuint)Math.Max(length, 1) + page - 1) / page * page;
                _mappingLength = usable + page;
                _mapping = Mmap(IntPtr.Zero, _mappingLength, ProtReadWrite, MapPrivateAnonymous, -1, IntPtr.Zero);
                Assert.NotEqual(new IntPtr(-1), _mapping);
                Assert.Equal(0, Mprotect(_mapping + (nint)usable, page, ProtNone));
                Pointer = (byte*)_mapping + (usable - (nuint)length);
            }

            public byte* Pointer { get; }

            public void Dispose() => Assert.Equal(0, Munmap(_mapping, _mappingLength));

            [DllImport("libc", EntryPoint = "mmap", SetLastError = true)]
            private static extern IntPtr Mmap(IntPtr address, nuint length, int protection, int flags, int fd, IntPtr offset);

            [DllImport("libc", EntryPoint = "mprotect", SetLastError = true)]
            private static extern int Mprotect(IntPtr address, nuint length, int protection);

            [DllImport("libc", EntryPoint = "munmap", SetLastError = true)]
            private static extern int Munmap(IntPtr address, nuint length);
        }
    }
}
