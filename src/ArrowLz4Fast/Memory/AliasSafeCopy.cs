using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// Copies as <see cref="Span{T}.CopyTo(Span{T})"/> does, except a long copy whose destination lies 1 to 63 bytes
    /// after its source modulo 4 KiB: the C library's memmove, to which the runtime hands copies over 2 KiB, runs such a
    /// copy an order of magnitude slower on CPUs with fast short <c>rep movsb</c> (AMD EPYC here, glibc 2.36: each
    /// store aliases the loads just ahead of it). That copy goes in pieces the runtime copies itself, with vector loads
    /// and stores. Which copies are hit depends only on where the two buffers happen to lie.
    /// </summary>
    internal static class AliasSafeCopy
    {
        // The runtime copies up to this many bytes itself (SpanHelpers.Memmove), longer ones through memmove.
        private const int RuntimeCopyLength = 2048;

        // Destinations this far past the source, modulo a page, are slow with memmove (1 to 15 measured; a margin kept).
        private const int AliasDistance = 64;

        private const int PageMask = 4095;

        /// <summary>
        /// Copies <paramref name="source"/> to the start of <paramref name="destination"/>; they may overlap, as with
        /// <see cref="Span{T}.CopyTo(Span{T})"/> (a frame moved towards the front of its array, say).
        /// </summary>
        /// <param name="source">The bytes.</param>
        /// <param name="destination">At least as long as <paramref name="source"/>.</param>
        public static void Copy(ReadOnlySpan<byte> source, Span<byte> destination)
        {
            // Pieces go front to back: not for a destination overlapping the source from behind it, which must be
            // copied back to front (as memmove does).
            if (source.Length <= RuntimeCopyLength || !Aliases(source, destination)
                || (source.Overlaps(destination, out int offset) && offset > 0))
            {
                source.CopyTo(destination);
                return;
            }
            if (destination.Length < source.Length)
                throw new ArgumentException("The destination is shorter than the source.", nameof(destination));
            for (int at = 0; at < source.Length; at += RuntimeCopyLength)
            {
                int length = Math.Min(RuntimeCopyLength, source.Length - at);
                source.Slice(at, length).CopyTo(destination.Slice(at, length));
            }
        }

        /// <summary>Whether the destination starts 1 to <see cref="AliasDistance"/> - 1 bytes past the source, modulo a page.</summary>
        internal static bool Aliases(ReadOnlySpan<byte> source, Span<byte> destination)
        {
            long distance = (long)Unsafe.ByteOffset(ref MemoryMarshal.GetReference(source), ref MemoryMarshal.GetReference(destination)) & PageMask;
            return distance != 0 && distance < AliasDistance;
        }
    }
}
