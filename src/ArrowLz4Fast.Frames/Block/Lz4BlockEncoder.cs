using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using K4os.Compression.LZ4;
using static ArrowLz4Fast.Frames.Lz4BlockFormat;
using static ArrowLz4Fast.Frames.Lz4Copy;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The LZ4 block encoder for the fast levels (0-2): a port of liblz4 1.9.4's <c>LZ4_compress_generic</c> as
    /// <c>LZ4_compress_default</c> runs it (no dictionary, acceleration 1, 4-byte hashes below 64 KiB + 11 bytes of
    /// input and 5-byte hashes from there on), specialised for those two table types at compile time. The HC levels
    /// (3-12) go to K4os <c>LZ4Codec.Encode</c>.
    /// </summary>
    /// <remarks>
    /// Why not K4os <c>LZ4Codec.Encode</c> for the fast levels too: it is the same algorithm, and on 64-bit processes
    /// its output is byte for byte this one's (and liblz4's; the tests compare every block), but K4os compiles its
    /// generic loop once, with the table type, dictionary mode and output mode as arguments tested inside the loop;
    /// specialised per table type, the loop is faster (docs/performance-notes.md).
    /// On 32-bit processes K4os hashes 4 bytes everywhere; this encoder hashes as 64-bit liblz4 does on every
    /// platform, so the package writes the same bytes on all of them.
    /// <para>
    /// Memory safety is liblz4's argument for its limited-output mode, which this always runs in (the bytes are the
    /// same as unlimited mode's whenever they fit): every literal run and match is checked against the output's end
    /// before it is written, with the slack the 8-byte wild copy overshoots by; input reads stop <c>LastLiterals</c>
    /// (5) bytes before its end, and the 32-byte copy of long literal runs runs only where 32 bytes of input and
    /// output are left.
    /// </para>
    /// <para>
    /// Inputs under 2 KiB run on a table each thread keeps (<see cref="EncodeOnKeptTable"/>): zeroing 16 KiB per call
    /// would cost about as much as compressing them.
    /// </para>
    /// </remarks>
    internal static unsafe class Lz4BlockEncoder
    {
        private const int MinLength = MfLimit + 1;
        private const int SkipTrigger = 6;
        private const int DistanceMax = 65535;
        private const int Limit64K = (64 * 1024) + (MfLimit - 1);
        private const int HashLog = 12;
        private const int TableBytes = 1 << 14;
        private const int MaxInputSize = 0x7E000000;

        // Inputs from this length on get a zeroed table, as liblz4's fast reset does from 4 KB: zeroing also brings
        // the table into the L1 cache, which on longer inputs gains more than the zeroing costs (even here at 2 KiB).
        private const int ContinueBelow = 2048;

        /// <summary>Whether <paramref name="level"/> is one this encoder compresses itself (0-2) rather than K4os's HC encoder.</summary>
        internal static bool IsFastLevel(LZ4Level level) => level < LZ4Level.L03_HC;

        /// <summary>
        /// Compresses <paramref name="sourceLength"/> bytes into at most <paramref name="targetLength"/> bytes at
        /// <paramref name="level"/>, with <c>LZ4Codec.Encode</c>'s contract: the compressed length, -1 when it does
        /// not fit, 0 for an empty source.
        /// </summary>
        public static int Encode(byte* source, int sourceLength, byte* target, int targetLength, LZ4Level level)
        {
            if (!IsFastLevel(level) || !BitConverter.IsLittleEndian)
                return LZ4Codec.Encode(source, sourceLength, target, targetLength, level);
            if (sourceLength <= 0)
                return 0;
            if (targetLength <= 0 || sourceLength > MaxInputSize)
                return -1;
            int written = sourceLength < ContinueBelow ? EncodeOnKeptTable(source, sourceLength, target, targetLength)
                : sourceLength < Limit64K ? EncodeFresh<ByU16>(source, sourceLength, target, targetLength)
                : EncodeFresh<ByU32>(source, sourceLength, target, targetLength);
            return written > 0 ? written : -1;
        }

        /// <summary>
        /// A short input on the thread's kept 16-bit table, not zeroed per call (liblz4's
        /// <c>LZ4_compress_fast_extState_fastReset</c>): positions continue from where the last input's ended, so every
        /// entry an earlier input left lies below this one's start, and such an entry reads as a fresh table's empty
        /// slot, position 0 (<see cref="Seen{TState}"/>). The loop sees what it would see on a zeroed table, and writes
        /// the same bytes; the table is zeroed only when the positions would no longer fit 16 bits.
        /// </summary>
        private static int EncodeOnKeptTable(byte* source, int sourceLength, byte* target, int targetLength)
        {
            KeptTable kept = t_table ??= new KeptTable();
            // Compress calls nothing that could encode again on this thread; the flag keeps that true should it change.
            if (kept.Busy)
                return EncodeFresh<ByU16>(source, sourceLength, target, targetLength);
            uint start = kept.Next;
            if (start + (uint)sourceLength >= ushort.MaxValue)
            {
                Array.Clear(kept.Table, 0, TableBytes);
                start = 0;
            }
            // Taken before the table is written, so the next call starts past every entry this one puts.
            kept.Next = start + (uint)sourceLength;
            kept.Busy = true;
            int written;
            fixed (byte* table = kept.Table)
            {
                written = start == 0
                    ? Compress<ByU16, Fresh>(source, sourceLength, target, targetLength, table, 0)
                    : Compress<ByU16, Continued>(source, sourceLength, target, targetLength, table, start);
            }
            kept.Busy = false;
            return written;
        }

        /// <summary>An input on a zeroed table of its own, as liblz4 keeps it in the caller's <c>LZ4_stream_t</c> and zeroes it per call.</summary>
        // The table is zeroed below, once: without the attribute the JIT would zero it first as well.
        [SkipLocalsInit]
        private static int EncodeFresh<T>(byte* source, int sourceLength, byte* target, int targetLength)
            where T : struct, ITableType
        {
            // Not kept for the 32-bit table: it hashes 5 bytes and compares 4, so a fresh table's empty slot can match
            // position 0 there, and an earlier input's entry would be rejected instead; its zeroing is small anyway.
            byte* table = stackalloc byte[TableBytes];
            new Span<byte>(table, TableBytes).Clear();
            return Compress<T, Fresh>(source, sourceLength, target, targetLength, table, 0);
        }

        /// <summary>A thread's 16-bit table, kept between calls, and the position the next input starts at.</summary>
        private sealed class KeptTable
        {
            public readonly byte[] Table = new byte[TableBytes];
            public uint Next;
            public bool Busy;
        }

        [ThreadStatic]
        private static KeptTable? t_table;

        /// <summary>The span form of <see cref="Encode(byte*, int, byte*, int, LZ4Level)"/>.</summary>
        public static int Encode(ReadOnlySpan<byte> source, Span<byte> target, LZ4Level level)
        {
            fixed (byte* src = &MemoryMarshal.GetReference(source))
            fixed (byte* dst = &MemoryMarshal.GetReference(target))
            {
                return Encode(src, source.Length, dst, target.Length, level);
            }
        }

        // The two table types of LZ4_compress_default: 16-bit positions and 4-byte hashes for inputs under 64 KiB +
        // 11 bytes, 32-bit positions and 5-byte hashes above. Type arguments (value types) make the JIT compile one
        // loop per table type with every test on the type folded away.
        private interface ITableType
        {
        }

        private struct ByU16 : ITableType
        {
        }

        private struct ByU32 : ITableType
        {
        }

        // Whether the table may hold entries of earlier inputs (positions below the start), to be rejected.
        private interface ITableState
        {
        }

        private struct Fresh : ITableState
        {
        }

        private struct Continued : ITableState
        {
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Hash<T>(byte* p)
            where T : struct, ITableType
        {
            if (typeof(T) == typeof(ByU16))
                return (Unsafe.ReadUnaligned<uint>(p) * 2654435761U) >> ((MinMatch * 8) - (HashLog + 1));
            return (uint)(((Unsafe.ReadUnaligned<ulong>(p) << 24) * 889523592379UL) >> (64 - HashLog));
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint GetIndex<T>(byte* table, uint hash)
            where T : struct, ITableType
            => typeof(T) == typeof(ByU16) ? ((ushort*)table)[hash] : ((uint*)table)[hash];

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void PutIndex<T>(byte* table, uint hash, uint index)
            where T : struct, ITableType
        {
            if (typeof(T) == typeof(ByU16))
                ((ushort*)table)[hash] = (ushort)index;
            else
                ((uint*)table)[hash] = index;
        }

        /// <summary>
        /// A table entry as a fresh table would hold it: an earlier input's (below this input's start) reads as an
        /// empty slot, position 0 of this input.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Seen<TState>(uint index, uint startIndex)
            where TState : struct, ITableState
            => typeof(TState) == typeof(Continued) && index < startIndex ? startIndex : index;

        /// <summary>The liblz4 loop for one table type, limited output; returns 0 when the output does not fit.</summary>
        /// <remarks>
        /// Compiled fully optimised at its first call: no tier-0 code with on-stack-replacement patchpoints, whose
        /// replacement compiles on the calling thread in the middle of a call, and the same code in every process
        /// (dynamic PGO made no measurable difference to this loop). netstandard2.0 has no name for the option.
        /// </remarks>
#if NETCOREAPP3_0_OR_GREATER
        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
#endif
        private static int Compress<T, TState>(byte* source, int inputSize, byte* dest, int maxOutputSize, byte* table, uint startIndex)
            where T : struct, ITableType
            where TState : struct, ITableState
        {
            // Positions count from start at the source's first byte; a fresh table's start is 0, known at compile time,
            // so its loop is the one without the offset.
            uint start = typeof(TState) == typeof(Continued) ? startIndex : 0;
            byte* ip = source;
            byte* anchor = source;
            byte* iend = source + inputSize;
            byte* mflimitPlusOne = iend - MfLimit + 1;
            byte* matchlimit = iend - LastLiterals;
            byte* op = dest;
            byte* olimit = dest + maxOutputSize;
            byte* match;
            byte* token;
            uint forwardH;

            if (inputSize < MinLength)
                goto LastLiteralRun;

            // First byte.
            PutIndex<T>(table, Hash<T>(ip), start);
            ip++;
            forwardH = Hash<T>(ip);

            while (true)
            {
                // Find a match, stepping further the longer none is found (acceleration 1).
                {
                    byte* forwardIp = ip;
                    int step = 1;
                    int searchMatchNb = 1 << SkipTrigger;
                    while (true)
                    {
                        uint h = forwardH;
                        uint current = (uint)(forwardIp - source) + start;
                        uint matchIndex = Seen<TState>(GetIndex<T>(table, h), start);
                        ip = forwardIp;
                        forwardIp += step;
                        step = searchMatchNb++ >> SkipTrigger;
                        if (forwardIp > mflimitPlusOne)
                            goto LastLiteralRun;
                        match = source + (matchIndex - start);
                        forwardH = Hash<T>(forwardIp);
                        PutIndex<T>(table, h, current);
                        // 16-bit positions cannot be further back than the maximum distance.
                        if (typeof(T) != typeof(ByU16) && matchIndex + DistanceMax < current)
                            continue;
                        if (Unsafe.ReadUnaligned<uint>(match) == Unsafe.ReadUnaligned<uint>(ip))
                            break;
                    }
                }

                // Catch up.
                while (ip > anchor && match > source && ip[-1] == match[-1])
                {
                    ip--;
                    match--;
                }

                // Literal run.
                {
                    uint litLength = (uint)(ip - anchor);
                    token = op++;
                    if (op + litLength + (2 + 1 + LastLiterals) + (litLength / 255) > olimit)
                        return 0;
                    if (litLength >= RunMask)
                    {
                        *token = (byte)(RunMask << MlBits);
                        op = WriteLengthBytes(op, litLength - RunMask);
                    }
                    else
                    {
                        *token = (byte)(litLength << MlBits);
                    }

                    CopyLiterals(op, anchor, litLength, olimit, iend);
                    op += litLength;
                }

            NextMatch:
                // Offset, then match length.
                Unsafe.WriteUnaligned(op, (ushort)(ip - match));
                op += 2;
                {
                    uint matchCode = Count(ip + MinMatch, match + MinMatch, matchlimit);
                    ip += matchCode + MinMatch;
                    if (op + (1 + LastLiterals) + ((matchCode + 240) / 255) > olimit)
                        return 0;
                    if (matchCode >= MlMask)
                    {
                        *token += (byte)MlMask;
                        matchCode -= MlMask;
                        Unsafe.WriteUnaligned(op, 0xFFFFFFFFu);
                        while (matchCode >= 4 * 255)
                        {
                            op += 4;
                            Unsafe.WriteUnaligned(op, 0xFFFFFFFFu);
                            matchCode -= 4 * 255;
                        }

                        op += matchCode / 255;
                        *op++ = (byte)(matchCode % 255);
                    }
                    else
                    {
                        *token += (byte)matchCode;
                    }
                }

                anchor = ip;
                if (ip >= mflimitPlusOne)
                    break;

                // Fill the table, then test the next position for an immediate match.
                PutIndex<T>(table, Hash<T>(ip - 2), (uint)(ip - 2 - source) + start);
                {
                    uint h = Hash<T>(ip);
                    uint current = (uint)(ip - source) + start;
                    uint matchIndex = Seen<TState>(GetIndex<T>(table, h), start);
                    match = source + (matchIndex - start);
                    PutIndex<T>(table, h, current);
                    if ((typeof(T) == typeof(ByU16) || matchIndex + DistanceMax >= current)
                        && Unsafe.ReadUnaligned<uint>(match) == Unsafe.ReadUnaligned<uint>(ip))
                    {
                        token = op++;
                        *token = 0;
                        goto NextMatch;
                    }
                }

                forwardH = Hash<T>(++ip);
            }

        LastLiteralRun:
            {
                uint lastRun = (uint)(iend - anchor);
                if (op + lastRun + 1 + ((lastRun + 255 - RunMask) / 255) > olimit)
                    return 0;
                if (lastRun >= RunMask)
                {
                    *op++ = (byte)(RunMask << MlBits);
                    op = WriteLengthBytes(op, lastRun - RunMask);
                }
                else
                {
                    *op++ = (byte)(lastRun << MlBits);
                }

                Buffer.MemoryCopy(anchor, op, lastRun, lastRun);
                op += lastRun;
            }

            return (int)(op - dest);
        }

        /// <summary>The bytes after a token whose literal length field is full: 255 while more remains, then the rest.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static byte* WriteLengthBytes(byte* op, uint remaining)
        {
            for (; remaining >= 255; remaining -= 255)
                *op++ = 255;
            *op++ = (byte)remaining;
            return op;
        }

        /// <summary>
        /// Copies a literal run. The caller checked that 8 bytes of slack follow it in the output (its token's
        /// check), and the run ends at least <c>MfLimit</c> bytes before the input's end, so the 8-byte wild copy stays
        /// inside both; long runs copy 32 bytes at a time where 32 bytes of output and input are left after them.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void CopyLiterals(byte* dst, byte* src, uint length, byte* olimit, byte* iend)
        {
            byte* end = dst + length;
            if (length > 16 && end + 32 <= olimit && src + length + 32 <= iend)
                WildCopy32(dst, src, end);
            else
                WildCopy8(dst, src, end);
        }

        /// <summary>How many bytes from <paramref name="pIn"/> equal those from <paramref name="pMatch"/>, up to <paramref name="pInLimit"/>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Count(byte* pIn, byte* pMatch, byte* pInLimit)
        {
            byte* pStart = pIn;
            while (pIn < pInLimit - 7)
            {
                ulong diff = Unsafe.ReadUnaligned<ulong>(pMatch) ^ Unsafe.ReadUnaligned<ulong>(pIn);
                if (diff != 0)
                    return (uint)(pIn - pStart) + (TrailingZeroCount(diff) >> 3);
                pIn += 8;
                pMatch += 8;
            }

            if (pIn < pInLimit - 3 && Unsafe.ReadUnaligned<uint>(pMatch) == Unsafe.ReadUnaligned<uint>(pIn))
            {
                pIn += 4;
                pMatch += 4;
            }

            if (pIn < pInLimit - 1 && Unsafe.ReadUnaligned<ushort>(pMatch) == Unsafe.ReadUnaligned<ushort>(pIn))
            {
                pIn += 2;
                pMatch += 2;
            }

            if (pIn < pInLimit && *pMatch == *pIn)
                pIn++;
            return (uint)(pIn - pStart);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint TrailingZeroCount(ulong value)
        {
#if NETCOREAPP3_0_OR_GREATER
            return (uint)System.Numerics.BitOperations.TrailingZeroCount(value);
#else
            // De Bruijn: the lowest set bit isolated, multiplied, its top 6 bits index the table.
            return DeBruijn64[(int)(((value & (ulong)-(long)value) * 0x022FDD63CC95386DUL) >> 58)];
#endif
        }

#if !NETCOREAPP3_0_OR_GREATER
        private static ReadOnlySpan<byte> DeBruijn64 => new byte[]
        {
            0, 1, 2, 53, 3, 7, 54, 27, 4, 38, 41, 8, 34, 55, 48, 28,
            62, 5, 39, 46, 44, 42, 22, 9, 24, 35, 59, 56, 49, 18, 29, 11,
            63, 52, 6, 26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
            51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
        };
#endif
    }
}
