using System;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// The reference: native liblz4's frame decoder (<c>LZ4F_decompress</c>) from the system's liblz4.so.1 (Debian
    /// package liblz4-1, which every machine with the lz4 CLI has). One instance per thread: a context is not
    /// thread-safe.
    /// </summary>
    internal sealed unsafe class Liblz4 : IDisposable
    {
        private const string Library = "liblz4.so.1";
        private const uint Version = 100;

        /// <summary>Decoded output past this is not compared (a mutant can declare a lot of output cheaply).</summary>
        public const int OutputCap = 64 << 20;

        private IntPtr _context;
        private byte[] _output = new byte[1 << 20];

        public Liblz4()
        {
            nuint status = LZ4F_createDecompressionContext(out _context, Version);
            if (LZ4F_isError(status) != 0)
                throw new InvalidOperationException("LZ4F_createDecompressionContext failed");
        }

        /// <summary>liblz4's version number (e.g. 10904), or throws <see cref="DllNotFoundException"/> when it is missing.</summary>
        public static int LibraryVersion() => LZ4_versionNumber();

        /// <summary>
        /// Decodes all of <paramref name="input"/> as concatenated frames into a zeroed buffer. Accepted only when every
        /// byte is consumed and the last frame is complete, which is what `lz4 -d` and Arrow C++ require too.
        /// </summary>
        public Reference Decode(ReadOnlySpan<byte> input)
        {
            // A fresh context per input: LZ4F_resetDecompressionContext leaves state behind after some errors (a
            // valid frame decoded after a rejected one failed with ERROR_frameSize_wrong), and a reference must not
            // depend on what it decoded before.
            LZ4F_freeDecompressionContext(_context);
            if (LZ4F_isError(LZ4F_createDecompressionContext(out _context, Version)) != 0)
                throw new InvalidOperationException("LZ4F_createDecompressionContext failed");
            if (input.IsEmpty)
                return Reference.Rejected("empty input", 0);

            int inPos = 0;
            int outPos = 0;
            Array.Clear(_output, 0, _output.Length);
            fixed (byte* src = input)
            {
                while (true)
                {
                    if (outPos == _output.Length)
                    {
                        if (_output.Length >= OutputCap)
                            return Reference.TooBig();
                        Array.Resize(ref _output, Math.Min(OutputCap, _output.Length * 2));
                    }
                    nuint srcSize = (nuint)(input.Length - inPos);
                    nuint dstSize = (nuint)(_output.Length - outPos);
                    nuint hint;
                    fixed (byte* dst = _output)
                        hint = LZ4F_decompress(_context, dst + outPos, ref dstSize, src + inPos, ref srcSize, IntPtr.Zero);
                    if (LZ4F_isError(hint) != 0)
                        return Reference.Rejected(Marshal.PtrToStringAnsi(LZ4F_getErrorName(hint)) ?? "error", outPos + (int)dstSize);
                    inPos += (int)srcSize;
                    outPos += (int)dstSize;
                    if (hint == 0 && inPos == input.Length)
                        return Reference.Accepted(_output.AsSpan(0, outPos).ToArray());
                    if (outPos == _output.Length)
                        continue;
                    if (inPos == input.Length || (srcSize == 0 && dstSize == 0))
                        return Reference.Rejected("truncated: the frame needs more input", outPos);
                }
            }
        }

        /// <summary>The bytes liblz4 had written before it stopped, valid right after <see cref="Decode"/>.</summary>
        public ReadOnlySpan<byte> PartialOutput(int length) => _output.AsSpan(0, length);

        public void Dispose()
        {
            if (_context != IntPtr.Zero)
            {
                LZ4F_freeDecompressionContext(_context);
                _context = IntPtr.Zero;
            }
        }

        /// <summary>
        /// liblz4's block compressor at the default level (<c>LZ4_compress_default</c>): the compressed length, or 0 when
        /// it does not fit in <paramref name="destination"/>. The reference for the package's block encoder.
        /// </summary>
        public static int CompressDefault(ReadOnlySpan<byte> source, Span<byte> destination)
        {
            fixed (byte* src = source)
            fixed (byte* dst = destination)
                return LZ4_compress_default(src, dst, source.Length, destination.Length);
        }

        /// <summary>liblz4's worst-case compressed length of <paramref name="length"/> bytes.</summary>
        public static int CompressBound(int length) => LZ4_compressBound(length);

        [DllImport(Library)]
        private static extern int LZ4_versionNumber();

        [DllImport(Library)]
        private static extern int LZ4_compress_default(byte* source, byte* destination, int sourceLength, int capacity);

        [DllImport(Library)]
        private static extern int LZ4_compressBound(int length);

        [DllImport(Library)]
        private static extern nuint LZ4F_createDecompressionContext(out IntPtr context, uint version);

        [DllImport(Library)]
        private static extern nuint LZ4F_freeDecompressionContext(IntPtr context);

        [DllImport(Library)]
        private static extern nuint LZ4F_decompress(IntPtr context, byte* dst, ref nuint dstSize, byte* src, ref nuint srcSize, IntPtr options);

        [DllImport(Library)]
        private static extern uint LZ4F_isError(nuint code);

        [DllImport(Library)]
        private static extern IntPtr LZ4F_getErrorName(nuint code);
    }

    /// <summary>What liblz4 did with an input.</summary>
    internal readonly record struct Reference(bool Accepts, bool OverCap, byte[]? Output, string? Error, int PartialLength)
    {
        public static Reference Accepted(byte[] output) => new(true, false, output, null, output.Length);

        public static Reference Rejected(string error, int partialLength) => new(false, false, null, error, partialLength);

        public static Reference TooBig() => new(false, true, null, "over the output cap", 0);

        public override string ToString() => Accepts ? $"accepts ({Output!.Length} bytes)" : OverCap ? "decodes past the cap" : $"rejects ({Error})";
    }
}
