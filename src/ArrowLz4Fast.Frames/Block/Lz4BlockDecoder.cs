using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using static ArrowLz4Fast.Frames.Lz4BlockFormat;
using static ArrowLz4Fast.Frames.Lz4Copy;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The LZ4 block decoder: a port of liblz4 1.9.4's <c>LZ4_decompress_generic</c> (safe, full-block mode, with its
    /// fast loop), so that every block is accepted, rejected and decoded exactly as the reference decoder does it.
    /// </summary>
    /// <remarks>
    /// Why not K4os <c>LZ4Codec.Decode</c>: K4os 1.3.8 ports an older liblz4 and differs from the reference on
    /// hostile input (see corpus/liblz4-agreement): a match with offset 0
    /// copies bytes of the destination it never wrote (liblz4 writes zeros), so the output depended on what the
    /// buffer held before; and it keeps a length-extension bound that liblz4 1.9.4 relaxed. Both are per-sequence
    /// details of the decoding loop that no check outside it can catch cheaply, so the loop itself is ours.
    /// <para>
    /// The prefix (linked blocks) is the <c>prefixLength</c> bytes of the window before the output; matches may
    /// reach back into it and no further. The caller sizes the output to the block maximum, as liblz4's frame
    /// decoder does, or less when less space is left: acceptance is monotonic in the output size (a block accepted
    /// into n bytes is accepted into more, with the same result), so a block that fails in a short output and
    /// succeeds in a block maximum genuinely does not fit.
    /// </para>
    /// <para>
    /// Memory safety follows liblz4's own argument: wild copies only run while the output has the slack they
    /// overshoot by (<c>FastLoopSafeDistance</c>, <c>MfLimit</c>, <c>MatchSafeguardDistance</c>), input reads are
    /// bounded by the same end-of-input rules, and nothing is written outside [output, output + capacity).
    /// </para>
    /// </remarks>
    internal static unsafe class Lz4BlockDecoder
    {
        private const int WildCopyLength = 8;
        private const int MatchSafeguardDistance = (2 * WildCopyLength) - MinMatch;
        private const int FastLoopSafeDistance = 64;

        /// <summary>
        /// Decodes one compressed block into <paramref name="window"/> after its first <paramref name="prefixLength"/>
        /// bytes, which are the prefix dictionary (the previous output of a linked frame; 0 for independent blocks).
        /// </summary>
        /// <returns>The decoded length, or -1 when the block is invalid or does not fit.</returns>
        public static int Decode(ReadOnlySpan<byte> block, Span<byte> window, int prefixLength)
        {
            Debug.Assert(prefixLength >= 0 && prefixLength <= window.Length, "the prefix lies within the window");
            fixed (byte* src = &MemoryMarshal.GetReference(block))
            fixed (byte* low = &MemoryMarshal.GetReference(window))
            {
                return Decode(src, block.Length, low + prefixLength, window.Length - prefixLength, low);
            }
        }

        private static int Decode(byte* src, int srcSize, byte* dst, int outputSize, byte* lowPrefix)
        {
            byte* ip = src;
            byte* iend = ip + srcSize;
            byte* op = dst;
            byte* oend = op + outputSize;
            byte* cpy;
            byte* match;
            nuint offset;
            nuint length;
            uint token;
            uint s;

            // The shortcut of the safe loop copies 16 literal and 18 match bytes at once when both ends allow it.
            byte* shortiend = iend - 14 - 2;
            byte* shortoend = oend - 14 - 18;

            if (outputSize == 0)
                return srcSize == 1 && *ip == 0 ? 0 : -1;
            if (srcSize == 0)
                return -1;

            if (oend - op < FastLoopSafeDistance)
                goto SafeDecode;

            // The length extensions are read by the same small loop in four places on purpose: a helper taking
            // `ref ip` would make ip address-exposed and keep it out of a register for the whole method.

            // Fast loop: runs while the output has FastLoopSafeDistance bytes of slack, so copies may overshoot.
            while (true)
            {
                // Each pass starts with the fast loop's slack ahead in the output and input left to read.
                Debug.Assert(oend - op >= FastLoopSafeDistance && ip < iend, "the fast loop keeps its slack");
                token = *ip++;
                length = token >> MlBits;
                if (length == RunMask)
                {
                    if (ip >= iend - RunMask)
                        goto Error;
                    do
                    {
                        s = *ip++;
                        length += s;
                        if (ip > iend - RunMask)
                            goto Error;
                    }
                    while (s == 255);
                    // Longer than the input left: liblz4 rejects it at the literal copy; rejecting it here also
                    // keeps the pointer arithmetic below from wrapping on 32-bit processes.
                    if (length > (nuint)(iend - ip))
                        goto Error;
                    cpy = op + length;
                    if (cpy > oend - 32 || ip + length > iend - 32)
                        goto SafeLiteralCopy;
                    WildCopy32(op, ip, cpy);
                    ip += length;
                    op = cpy;
                }
                else
                {
                    cpy = op + length;
                    if (ip > iend - (16 + 1))
                        goto SafeLiteralCopy;
                    Copy16(op, ip);
                    ip += length;
                    op = cpy;
                }

                offset = Unsafe.ReadUnaligned<ushort>(ip);
                ip += 2;
                match = op - offset;
                length = token & MlMask;
                if (length == MlMask)
                {
                    do
                    {
                        s = *ip++;
                        length += s;
                        if (ip > iend - LastLiterals + 1)
                            goto Error;
                    }
                    while (s == 255);
                    length += MinMatch;
                    if (length > (nuint)(oend - op))
                        goto Error;
                    if (match < lowPrefix)
                        goto Error;
                    if (op + length >= oend - FastLoopSafeDistance)
                        goto SafeMatchCopy;
                }
                else
                {
                    length += MinMatch;
                    if (op + length >= oend - FastLoopSafeDistance)
                        goto SafeMatchCopy;
                    if (match >= lowPrefix && offset >= 8)
                    {
                        Debug.Assert(oend - op >= 18, "the short match's fixed 18-byte copy fits");
                        Copy8(op, match);
                        Copy8(op + 8, match + 8);
                        Copy2(op + 16, match + 16);
                        op += length;
                        continue;
                    }
                }

                if (match < lowPrefix)
                    goto Error;
                cpy = op + length;
                Debug.Assert(cpy < oend - FastLoopSafeDistance, "a fast-loop match ends before the slack its wild copy overshoots into");
                if (offset < 16)
                    CopyUsingOffset(op, match, cpy, offset);
                else
                    WildCopy32(op, match, cpy);
                op = cpy;
            }

        SafeDecode:
            token = *ip++;
            length = token >> MlBits;
            if (length != RunMask && ip < shortiend && op <= shortoend)
            {
                Copy16(op, ip);
                op += length;
                ip += length;
                length = token & MlMask;
                offset = Unsafe.ReadUnaligned<ushort>(ip);
                ip += 2;
                match = op - offset;
                if (length != MlMask && offset >= 8 && match >= lowPrefix)
                {
                    Copy8(op, match);
                    Copy8(op + 8, match + 8);
                    Copy2(op + 16, match + 16);
                    op += length + MinMatch;
                    goto SafeDecode;
                }
                goto CopyMatch;
            }

            if (length == RunMask)
            {
                if (ip >= iend - RunMask)
                    goto Error;
                do
                {
                    s = *ip++;
                    length += s;
                    if (ip > iend - RunMask)
                        goto Error;
                }
                while (s == 255);
                if (length > (nuint)(iend - ip))
                    goto Error;
            }
            cpy = op + length;

        SafeLiteralCopy:
            if (cpy > oend - MfLimit || ip + length > iend - (2 + 1 + LastLiterals))
            {
                // Only the last sequence may end here: it must end the input exactly and fit the output.
                if (ip + length != iend || cpy > oend)
                    goto Error;
                Buffer.MemoryCopy(ip, op, length, length);
                op += length;
                Debug.Assert(op >= dst && op <= oend, "the last literals end within the output");
                return (int)(op - dst);
            }
            // The wild copy overshoots cpy by less than 8 bytes, inside the MfLimit bytes the check above left.
            Debug.Assert(cpy + WildCopyLength <= oend && ip + length + 2 <= iend, "the safe loop's literal copy stays in bounds");
            WildCopy8(op, ip, cpy);
            ip += length;
            op = cpy;

            offset = Unsafe.ReadUnaligned<ushort>(ip);
            ip += 2;
            match = op - offset;
            length = token & MlMask;

        CopyMatch:
            if (length == MlMask)
            {
                // liblz4 1.9.4 lets the length end on the last byte before the 5 last literals (ip > limit, not >=).
                do
                {
                    s = *ip++;
                    length += s;
                    if (ip > iend - LastLiterals + 1)
                        goto Error;
                }
                while (s == 255);
            }
            length += MinMatch;
            if (length > (nuint)(oend - op))
                goto Error;

        SafeMatchCopy:
            if (match < lowPrefix)
                goto Error;
            cpy = op + length;
            // Literals left MfLimit bytes before the end, so the first 8 bytes of a match always fit.
            Debug.Assert(cpy <= oend && oend - op >= WildCopyLength, "a match is checked to fit before it is copied");
            if (offset < 8)
            {
                // Offset 0 is invalid in the block format; liblz4 writes zeros for it (this first store), and so
                // do we, so the output never repeats what the destination held before.
                Unsafe.WriteUnaligned(op, 0u);
                op[0] = match[0];
                op[1] = match[1];
                op[2] = match[2];
                op[3] = match[3];
                match += Inc32(offset);
                Copy4(op + 4, match);
                match -= Dec64(offset);
            }
            else
            {
                Copy8(op, match);
                match += 8;
            }
            op += 8;

            if (cpy > oend - MatchSafeguardDistance)
            {
                byte* copyLimit = oend - (WildCopyLength - 1);
                if (cpy > oend - LastLiterals)
                    goto Error;
                Debug.Assert(copyLimit + WildCopyLength - 1 == oend, "the byte-wise tail ends at the output's end");
                if (op < copyLimit)
                {
                    WildCopy8(op, match, copyLimit);
                    match += copyLimit - op;
                    op = copyLimit;
                }
                while (op < cpy)
                    *op++ = *match++;
            }
            else
            {
                Copy8(op, match);
                if (length > 16)
                    WildCopy8(op + 8, match + 8, cpy);
            }
            op = cpy;
            goto SafeDecode;

        Error:
            return -1;
        }

        // liblz4's inc32table and dec64table: how far the source moves for the second half of an 8-byte copy from
        // an offset under 8, so the repeated pattern comes out right.
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static nuint Inc32(nuint offset) => (nuint)(0x44401210u >> (int)(offset * 4) & 0xF);

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static nint Dec64(nuint offset) => Dec64Table[(int)offset];

        private static ReadOnlySpan<sbyte> Dec64Table => new sbyte[] { 0, 0, 0, -1, -4, 1, 2, 3 };

        /// <summary>A match with an offset under 16 (liblz4's <c>LZ4_memcpy_using_offset</c>); may write up to 7 bytes past <paramref name="end"/>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void CopyUsingOffset(byte* dst, byte* src, byte* end, nuint offset)
        {
            ulong pattern;
            switch (offset)
            {
                case 1:
                    pattern = 0x0101010101010101UL * *src;
                    break;
                case 2:
                    pattern = 0x0001000100010001UL * Unsafe.ReadUnaligned<ushort>(src);
                    break;
                case 4:
                    pattern = 0x0000000100000001UL * Unsafe.ReadUnaligned<uint>(src);
                    break;
                default:
                    CopyUsingOffsetBase(dst, src, end, offset);
                    return;
            }
            do
            {
                Unsafe.WriteUnaligned(dst, pattern);
                dst += 8;
            }
            while (dst < end);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void CopyUsingOffsetBase(byte* dst, byte* src, byte* end, nuint offset)
        {
            if (offset < 8)
            {
                Unsafe.WriteUnaligned(dst, 0u); // offset 0: zeros, as liblz4 writes
                dst[0] = src[0];
                dst[1] = src[1];
                dst[2] = src[2];
                dst[3] = src[3];
                src += Inc32(offset);
                Copy4(dst + 4, src);
                src -= Dec64(offset);
                dst += 8;
            }
            else
            {
                Copy8(dst, src);
                dst += 8;
                src += 8;
            }
            WildCopy8(dst, src, end);
        }
    }
}
