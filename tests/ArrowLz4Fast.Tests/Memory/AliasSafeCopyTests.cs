using System;
using System.Runtime.InteropServices;
using ArrowLz4Fast.Memory;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="AliasSafeCopy"/> against <see cref="Span{T}.CopyTo(Span{T})"/>: every length around the runtime's
    /// own-copy limit, at every distance of the destination past the source modulo a page from 0 to 80 and around the
    /// page, copies exactly the source and nothing past it; and the distances it copies in pieces are exactly 1 to 63.
    /// </summary>
    public sealed unsafe class AliasSafeCopyTests
    {
        private static readonly int[] Lengths = { 0, 1, 63, 2047, 2048, 2049, 4095, 4096, 5000, 9000, 70_000 };

        [Fact]
        public void Every_length_at_every_distance_copies_the_source_and_nothing_else()
        {
            const int room = 80_000;
            byte* source = (byte*)NativeMemory.AlignedAlloc(room + 8192, 4096);
            byte* destination = (byte*)NativeMemory.AlignedAlloc(room + 8192, 4096);
            try
            {
                var random = new Random(7);
                for (int i = 0; i < room + 8192; i++)
                    source[i] = (byte)random.Next(256);
                foreach (int sourceOffset in new[] { 0, 8, 64, 4000 })
                {
                    for (int distance = 0; distance <= 4096; distance += distance < 80 ? 1 : distance < 4000 ? 1000 : 8)
                    {
                        int destinationOffset = (sourceOffset + distance) % 4096;
                        foreach (int length in Lengths)
                        {
                            var from = new ReadOnlySpan<byte>(source + sourceOffset, length);
                            var all = new Span<byte>(destination, room + 8192);
                            all.Fill(0xA5);
                            var to = new Span<byte>(destination + destinationOffset, length + 16);
                            Assert.Equal(distance % 4096 is > 0 and < 64, AliasSafeCopy.Aliases(from, to));

                            AliasSafeCopy.Copy(from, to);

                            Assert.True(from.SequenceEqual(to.Slice(0, length)), $"length {length}, distance {distance}, source offset {sourceOffset}");
                            Assert.True(all.Slice(0, destinationOffset).IndexOfAnyExcept((byte)0xA5) < 0, "nothing before the destination");
                            Assert.True(all.Slice(destinationOffset + length).IndexOfAnyExcept((byte)0xA5) < 0, $"nothing past the copy: length {length}, distance {distance}");
                        }
                    }
                }
            }
            finally
            {
                NativeMemory.AlignedFree(source);
                NativeMemory.AlignedFree(destination);
            }
        }

        /// <summary>
        /// Within one array, as a frame moved towards the front: every move by a distance that aliases (a page less 1 to
        /// 63 bytes: the destination 1 to 63 past the source modulo a page) or not, forwards and backwards, gives what
        /// a copy through a separate buffer gives.
        /// </summary>
        [Fact]
        public void Overlapping_moves_either_way_give_what_a_copy_through_a_separate_buffer_gives()
        {
            var random = new Random(11);
            byte[] original = new byte[40_000];
            random.NextBytes(original);
            foreach (int move in new[] { 4095, 4088, 4033, 4032, 8184, 2040, 8, 1, 63 })
            {
                foreach (int length in new[] { 2049, 5000, 9000, 20_000 })
                {
                    foreach (bool towardsTheFront in new[] { true, false })
                    {
                        byte[] bytes = (byte[])original.Clone();
                        int from = towardsTheFront ? 12_000 : 3_000, to = towardsTheFront ? from - move : from + move;
                        byte[] expected = (byte[])original.Clone();
                        original.AsSpan(from, length).ToArray().CopyTo(expected, to);

                        AliasSafeCopy.Copy(bytes.AsSpan(from, length), bytes.AsSpan(to, length));

                        Assert.True(expected.AsSpan().SequenceEqual(bytes), $"move {move} {(towardsTheFront ? "towards the front" : "back")}, length {length}");
                    }
                }
            }
        }

        [Fact]
        public void A_destination_shorter_than_a_long_aliasing_source_is_refused_as_CopyTo_refuses_it()
        {
            byte[] bytes = new byte[10_000];
            // Within one array, the destination a page and 8 bytes on, not overlapping: the pieces path.
            Assert.True(AliasSafeCopy.Aliases(bytes.AsSpan(0, 4000), bytes.AsSpan(4104, 100)));
            Assert.Throws<ArgumentException>(() => AliasSafeCopy.Copy(bytes.AsSpan(0, 4000), bytes.AsSpan(4104, 100)));
        }
    }
}
