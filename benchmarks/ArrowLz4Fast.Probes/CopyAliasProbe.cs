using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// <c>--copy-alias-probe</c>: 1.6 MB copied in 8 KiB pieces (an 8 KiB Arrow buffer a write) from 4 KiB-aligned native
    /// memory, the destination 0 to 4,088 bytes past the source modulo a page, with <see cref="Span{T}.CopyTo(Span{T})"/>
    /// (the runtime hands copies over 2 KiB to the C library's memmove) and in 2 KiB pieces (the runtime's own copy, as
    /// <c>AliasSafeCopy</c> does for the distances it guards). Best of 20, microseconds.
    /// </summary>
    internal static unsafe class CopyAliasProbe
    {
        public const string Switch = "--copy-alias-probe";

        public static int Run()
        {
            const int total = 1600 * 1024, piece = 8192;
            byte* source = (byte*)NativeMemory.AlignedAlloc(total + 8192, 4096);
            byte* destinations = (byte*)NativeMemory.AlignedAlloc(total + 16384, 4096);
            new Span<byte>(source, total).Fill(0x5A);
            Console.WriteLine("distance  CopyTo  2KiB-pieces (us)");
            foreach (int distance in new[] { 0, 1, 4, 8, 12, 15, 16, 32, 48, 63, 64, 256, 2048, 4088 })
            {
                byte* destination = destinations + distance;
                double whole = Best(() =>
                {
                    for (int at = 0; at < total; at += piece)
                        new ReadOnlySpan<byte>(source + at, piece).CopyTo(new Span<byte>(destination + at, piece));
                });
                double pieces = Best(() =>
                {
                    for (int at = 0; at < total; at += 2048)
                        new ReadOnlySpan<byte>(source + at, 2048).CopyTo(new Span<byte>(destination + at, 2048));
                });
                Console.WriteLine($"{distance,8} {whole,7:0} {pieces,12:0}");
            }
            NativeMemory.AlignedFree(source);
            NativeMemory.AlignedFree(destinations);
            return 0;
        }

        private static double Best(Action copy)
        {
            double best = double.MaxValue;
            for (int i = 0; i < 20; i++)
            {
                long start = Stopwatch.GetTimestamp();
                copy();
                best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalMicroseconds);
            }
            return best;
        }
    }
}
