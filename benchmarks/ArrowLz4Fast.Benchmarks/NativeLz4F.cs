using System;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>Native liblz4's frame decoder (LZ4F_decompress from liblz4.so.1), the ceiling for stream decode throughput.</summary>
    internal sealed unsafe class NativeLz4F : IDisposable
    {
        private const string Library = "liblz4.so.1";
        private const uint Version = 100;
        private IntPtr _context;

        public NativeLz4F()
        {
            if (LZ4F_isError(LZ4F_createDecompressionContext(out _context, Version)) != 0)
                throw new InvalidOperationException("LZ4F_createDecompressionContext failed");
        }

        /// <summary>Decodes the whole frame into <paramref name="destination"/>; returns the decoded length.</summary>
        public int Decode(ReadOnlySpan<byte> source, Span<byte> destination)
        {
            LZ4F_resetDecompressionContext(_context);
            fixed (byte* src = source)
            fixed (byte* dst = destination)
            {
                nuint inPos = 0, outPos = 0;
                while (true)
                {
                    nuint srcSize = (nuint)source.Length - inPos;
                    nuint dstSize = (nuint)destination.Length - outPos;
                    nuint hint = LZ4F_decompress(_context, dst + outPos, ref dstSize, src + inPos, ref srcSize, IntPtr.Zero);
                    if (LZ4F_isError(hint) != 0)
                        throw new InvalidOperationException("LZ4F_decompress failed");
                    inPos += srcSize;
                    outPos += dstSize;
                    if (hint == 0 || (srcSize == 0 && dstSize == 0))
                        return (int)outPos;
                }
            }
        }

        public void Dispose()
        {
            if (_context != IntPtr.Zero)
                LZ4F_freeDecompressionContext(_context);
            _context = IntPtr.Zero;
        }

        [DllImport(Library)]
        private static extern nuint LZ4F_createDecompressionContext(out IntPtr context, uint version);

        [DllImport(Library)]
        private static extern nuint LZ4F_freeDecompressionContext(IntPtr context);

        [DllImport(Library)]
        private static extern void LZ4F_resetDecompressionContext(IntPtr context);

        [DllImport(Library)]
        private static extern uint LZ4F_isError(nuint code);

        [DllImport(Library)]
        private static extern nuint LZ4F_decompress(IntPtr context, byte* dst, ref nuint dstSize, byte* src, ref nuint srcSize, IntPtr options);
    }
}
