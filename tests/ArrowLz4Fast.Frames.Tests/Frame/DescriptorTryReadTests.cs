using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameDescriptor.TryRead"/> agrees with <see cref="Lz4FrameDescriptor.Read"/> on every committed
    /// frame, well-formed or malformed, and on every truncation and single-byte change of their headers: true with the
    /// same descriptor where Read returns, false where Read throws.
    /// </summary>
    public class DescriptorTryReadTests
    {
        public static IEnumerable<object[]> Files() =>
            Corpus.DataFiles("frames").Concat(Corpus.DataFiles("malformed")).Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(Files))]
        public void TryRead_agrees_with_Read_on_the_frame_its_truncations_and_its_header_mutations(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            int header = Math.Min(bytes.Length, 19);
            for (int length = 0; length <= header; length++)
                Agree(bytes.AsSpan(0, length).ToArray());
            for (int at = 0; at < header; at++)
            {
                foreach (byte mask in new byte[] { 0x01, 0x10, 0x40, 0x80 })
                {
                    byte[] mutant = (byte[])bytes.Clone();
                    mutant[at] ^= mask;
                    Agree(mutant);
                }
            }
        }

        [Fact]
        public void TryRead_refuses_an_offset_outside_the_input()
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => Lz4FrameDescriptor.TryRead(new byte[4], 5, out _));
            Assert.False(Lz4FrameDescriptor.TryRead(new byte[4], 4, out Lz4FrameDescriptor none));
            Assert.Equal(default, none);
        }

        private static void Agree(byte[] input)
        {
            Lz4FrameDescriptor expected = default;
            Exception? error = Record.Exception(() => expected = Lz4FrameDescriptor.Read(input, 0));
            bool read = Lz4FrameDescriptor.TryRead(input, 0, out Lz4FrameDescriptor actual);
            Assert.Equal(error is null, read);
            if (error is not null)
                Assert.IsAssignableFrom<InvalidDataException>(error);
            Assert.Equal(expected, actual);
        }
    }
}
