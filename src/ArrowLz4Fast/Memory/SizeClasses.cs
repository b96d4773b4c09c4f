using System.Runtime.CompilerServices;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// The block sizes the allocator hands out. Up to 256 bytes every multiple of 64 is a class, because every block
    /// starts 64-byte aligned and so cannot be smaller than that; above, each power of two is split into four classes
    /// (320, 384, 448, 512, 640, ...), so rounding a request up to its class wastes less than a quarter of it while
    /// keeping the number of free lists small (96 classes cover every length up to <see cref="int.MaxValue"/>).
    /// </summary>
    internal static class SizeClasses
    {
        /// <summary>Every block starts at a multiple of this, as Arrow requires of its buffers.</summary>
        public const int Alignment = 64;

        /// <summary>Number of classes: the largest holds <see cref="int.MaxValue"/> bytes.</summary>
        public const int Count = 96;

        /// <summary>The class of the smallest block that holds <paramref name="length"/> (at least 1) bytes.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static int IndexOf(int length)
        {
            if (length <= 256)
                return (length - 1) >> 6;
            // length is in (2^k, 2^(k+1)]: the four classes of that range are 5, 6, 7 and 8 steps of 2^(k-2).
            uint last = (uint)(length - 1);
            int k = Log2(last);
            int shift = k - 2;
            return 4 + ((k - 8) << 2) + (int)(last >> shift) - 4;
        }

        /// <summary>Bytes of a block of class <paramref name="index"/>: a multiple of 64.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static long SizeOf(int index)
        {
            if (index < 4)
                return (index + 1) * 64L;
            int k = 8 + ((index - 4) >> 2);
            return (long)(5 + ((index - 4) & 3)) << (k - 2);
        }

        private static int Log2(uint value)
        {
#if NET
            return System.Numerics.BitOperations.Log2(value);
#else
            int log = 0;
            while ((value >>= 1) != 0)
                log++;
            return log;
#endif
        }
    }
}
