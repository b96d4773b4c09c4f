using System;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// One entry of <see cref="Lz4FrameDecoder.DecodeBatch"/>: where a frame's bytes are in the batch's source, and
    /// where its decoded bytes go in the batch's destination, with their exact length. A container that stored some
    /// entries uncompressed (Arrow IPC's raw buffers) marks them <see cref="Stored"/>: their bytes are copied.
    /// </summary>
    public readonly struct Lz4FrameBatchItem : IEquatable<Lz4FrameBatchItem>
    {
        /// <summary>Describes one entry of a batch.</summary>
        /// <param name="sourceOffset">Where the entry's bytes start in the batch's source.</param>
        /// <param name="sourceLength">How many bytes of the source are the entry's (one or more whole LZ4 frames).</param>
        /// <param name="destinationOffset">Where its decoded bytes start in the batch's destination.</param>
        /// <param name="destinationLength">Exactly how many bytes it decodes to.</param>
        /// <param name="stored">The source bytes are the content itself, copied (then both lengths must be equal).</param>
        public Lz4FrameBatchItem(int sourceOffset, int sourceLength, int destinationOffset, int destinationLength, bool stored = false)
        {
            SourceOffset = sourceOffset;
            SourceLength = sourceLength;
            DestinationOffset = destinationOffset;
            DestinationLength = destinationLength;
            Stored = stored;
        }

        /// <summary>Where the entry's bytes start in the batch's source.</summary>
        public int SourceOffset { get; }

        /// <summary>How many bytes of the source are the entry's.</summary>
        public int SourceLength { get; }

        /// <summary>Where its decoded bytes start in the batch's destination.</summary>
        public int DestinationOffset { get; }

        /// <summary>Exactly how many bytes it decodes to; any other length is an error.</summary>
        public int DestinationLength { get; }

        /// <summary>The source bytes are the content itself and are copied, not decoded.</summary>
        public bool Stored { get; }

        /// <inheritdoc/>
        public bool Equals(Lz4FrameBatchItem other) =>
            SourceOffset == other.SourceOffset && SourceLength == other.SourceLength && DestinationOffset == other.DestinationOffset
            && DestinationLength == other.DestinationLength && Stored == other.Stored;

        /// <inheritdoc/>
        public override bool Equals(object? obj) => obj is Lz4FrameBatchItem other && Equals(other);

        /// <inheritdoc/>
        public override int GetHashCode() =>
            (((((SourceOffset * 397) ^ SourceLength) * 397 ^ DestinationOffset) * 397) ^ DestinationLength) * 2 + (Stored ? 1 : 0);

        /// <summary>Compares two entries.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they are equal.</returns>
        public static bool operator ==(Lz4FrameBatchItem left, Lz4FrameBatchItem right) => left.Equals(right);

        /// <summary>Compares two entries.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they differ.</returns>
        public static bool operator !=(Lz4FrameBatchItem left, Lz4FrameBatchItem right) => !left.Equals(right);

        /// <summary>
        /// Checks that every item lies inside a source of <paramref name="sourceLength"/> bytes and a destination of
        /// <paramref name="destinationLength"/>, and that stored items have equal lengths; returns the sums of their
        /// source and destination lengths and the longest source.
        /// </summary>
        internal static (long Sources, long Destinations, long LongestSource) Check(ReadOnlySpan<Lz4FrameBatchItem> items, int sourceLength, int destinationLength)
        {
            long sources = 0, destinations = 0, longest = 0;
            for (int i = 0; i < items.Length; i++)
            {
                ref readonly Lz4FrameBatchItem item = ref items[i];
                if (!InRange(item.SourceOffset, item.SourceLength, sourceLength) || !InRange(item.DestinationOffset, item.DestinationLength, destinationLength))
                    throw new ArgumentOutOfRangeException(nameof(items), $"Item {i} ({item}) is not inside the source ({sourceLength} bytes) and the destination ({destinationLength} bytes).");
                if (item.Stored && item.SourceLength != item.DestinationLength)
                    throw new ArgumentException($"Item {i} is stored but its source length {item.SourceLength} differs from its destination length {item.DestinationLength}.", nameof(items));
                sources += item.SourceLength;
                destinations += item.DestinationLength;
                longest = Math.Max(longest, item.SourceLength);
            }
            return (sources, destinations, longest);
        }

        private static bool InRange(int offset, int length, int limit) => offset >= 0 && length >= 0 && offset <= limit - length;

        /// <inheritdoc/>
        public override string ToString() =>
            $"source [{SourceOffset}, +{SourceLength}) -> destination [{DestinationOffset}, +{DestinationLength}){(Stored ? ", stored" : "")}";
    }
}
