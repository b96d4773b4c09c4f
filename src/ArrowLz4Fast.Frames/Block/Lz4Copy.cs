using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Frames
{
    /// <summary>The unaligned copies the block decoder and the block encoder share (liblz4's <c>LZ4_wildCopy8</c> / <c>LZ4_wildCopy32</c>).</summary>
    internal static unsafe class Lz4Copy
    {
        // The copies below run in order, 8 or 16 bytes at a time: a match with an offset of at least that size then
        // reads only bytes already written, which is what overlapping LZ4 matches mean.
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Copy2(byte* dst, byte* src) => Unsafe.WriteUnaligned(dst, Unsafe.ReadUnaligned<ushort>(src));

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Copy4(byte* dst, byte* src) => Unsafe.WriteUnaligned(dst, Unsafe.ReadUnaligned<uint>(src));

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Copy8(byte* dst, byte* src) => Unsafe.WriteUnaligned(dst, Unsafe.ReadUnaligned<ulong>(src));

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Copy16(byte* dst, byte* src) => Unsafe.WriteUnaligned(dst, Unsafe.ReadUnaligned<Bytes16>(src));

        /// <summary>Copies 8 bytes at a time until <paramref name="end"/>; may write up to 7 bytes past it.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void WildCopy8(byte* dst, byte* src, byte* end)
        {
            do
            {
                Copy8(dst, src);
                dst += 8;
                src += 8;
            }
            while (dst < end);
        }

        /// <summary>Copies 32 bytes at a time (as two ordered 16-byte copies) until <paramref name="end"/>; may write up to 31 bytes past it.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void WildCopy32(byte* dst, byte* src, byte* end)
        {
            do
            {
                Copy16(dst, src);
                Copy16(dst + 16, src + 16);
                dst += 32;
                src += 32;
            }
            while (dst < end);
        }

        /// <summary>16 bytes moved as one unaligned load and store.</summary>
        [StructLayout(LayoutKind.Sequential, Size = 16)]
        private readonly struct Bytes16
        {
            private readonly ulong _a;
            private readonly ulong _b;
        }
    }
}
