using System;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// Settings for <see cref="SlabMemoryAllocator"/>. The allocator copies them when it is created, so changing an
    /// instance afterwards does not affect allocators already made.
    /// </summary>
    public sealed class SlabMemoryAllocatorOptions
    {
        /// <summary>Upper bound of the default <see cref="MaxIdleBytes"/>: 256 MiB.</summary>
        public const long DefaultMaxIdleBytesLimit = 256L << 20;

        /// <summary>The default <see cref="IdleTrimDelay"/>: 30 seconds.</summary>
        public static readonly TimeSpan DefaultIdleTrimDelay = TimeSpan.FromSeconds(30);

        private long _maxIdleBytes = DefaultMaxIdleBytes;
        private TimeSpan _idleTrimDelay = DefaultIdleTrimDelay;

        /// <summary>
        /// The retention cap: the most bytes of free memory (retained but not in use) kept for reuse. When returned
        /// buffers push the free memory past it, slabs with no buffer in use go back to the OS at once (threads keep no
        /// free blocks of their own while the allocator retains more than this). Default: 256 MiB,
        /// or an eighth of the memory available to the process if that is less (on .NET 8 and later, which know a
        /// container's limit). 0 keeps nothing a buffer does not use.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">A negative value.</exception>
        public long MaxIdleBytes
        {
            get => _maxIdleBytes;
            set => _maxIdleBytes = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(value), value, "must be 0 or more");
        }

        /// <summary>
        /// After this long without an allocation or a return (checked four times per delay, so within 1.25 times it),
        /// every slab with no buffer in use goes back to the OS. Default 30 seconds;
        /// <see cref="Timeout.InfiniteTimeSpan"/> keeps free memory (up to <see cref="MaxIdleBytes"/>) until
        /// <see cref="SlabMemoryAllocator.Trim"/>.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Not positive (other than infinite), or longer than 24 days.</exception>
        public TimeSpan IdleTrimDelay
        {
            get => _idleTrimDelay;
            set => _idleTrimDelay =
                value == Timeout.InfiniteTimeSpan || (value > TimeSpan.Zero && value.TotalMilliseconds <= int.MaxValue)
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(value), value, "must be positive and at most 24 days, or Timeout.InfiniteTimeSpan");
        }

        /// <summary>
        /// Zero every buffer before handing it out, as Arrow's own allocator does (default <see langword="true"/>).
        /// Only the bytes an earlier buffer of the same block may have written are cleared; memory fresh from the OS
        /// is zero already. <see langword="false"/> hands out reused memory as it was left, which can expose the
        /// contents of an earlier buffer (of another reader, if the allocator is shared) wherever Arrow or the codec
        /// does not overwrite every byte, e.g. the padding after a buffer's data. Turn it off only when everything
        /// that shares the allocator may see everything else's data.
        /// </summary>
        public bool ClearBuffers { get; set; } = true;

        internal SlabMemoryAllocatorOptions Clone() => (SlabMemoryAllocatorOptions)MemberwiseClone();

        private static long DefaultMaxIdleBytes
        {
            get
            {
#if NET
                long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
                if (available > 0)
                    return Math.Min(DefaultMaxIdleBytesLimit, available / 8);
#endif
                return DefaultMaxIdleBytesLimit;
            }
        }
    }
}
