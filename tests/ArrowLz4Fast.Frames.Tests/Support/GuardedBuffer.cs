using System;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// A destination that is a slice in the middle of a larger array filled with a sentinel pattern, so a test can
    /// prove a decoder wrote nothing before or after the slice.
    /// </summary>
    internal sealed class GuardedBuffer
    {
        public const int GuardLength = 4096;
        private readonly byte[] _array;

        public GuardedBuffer(int length)
        {
            Length = length;
            _array = new byte[GuardLength + length + GuardLength];
            for (int i = 0; i < _array.Length; i++)
                _array[i] = Sentinel(i);
        }

        public int Length { get; }

        public Memory<byte> Memory => _array.AsMemory(GuardLength, Length);

        public Span<byte> Span => _array.AsSpan(GuardLength, Length);

        public void AssertGuardsIntact()
        {
            for (int i = 0; i < GuardLength; i++)
                Assert.True(_array[i] == Sentinel(i), $"byte {GuardLength - i} before the destination was overwritten");
            for (int i = GuardLength + Length; i < _array.Length; i++)
                Assert.True(_array[i] == Sentinel(i), $"byte {i - GuardLength - Length} past the destination was overwritten");
        }

        private static byte Sentinel(int i) => (byte)(0xA5 ^ (i * 31));
    }
}
