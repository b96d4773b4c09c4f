using System;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// How many threads <see cref="Lz4FrameDecoder"/> and <see cref="Lz4FrameEncoder"/> may use on one call, at most 16
    /// whatever the degree (LZ4 is memory-bound before that). The default value is sequential (one thread). Parallel decode applies to frames with two or more
    /// independent blocks; parallel encode to sources of two or more blocks. The calling thread always takes part,
    /// and the result is exactly the sequential result: the same bytes, the same exception.
    /// </summary>
    public readonly struct Lz4Parallelism : IEquatable<Lz4Parallelism>
    {
        /// <summary>
        /// The smallest buffer that goes parallel when none is given: 256 KiB, so that a buffer of two default 256 KiB
        /// blocks or more does (docs/threading.md and docs/performance.md hold the measurements).
        /// </summary>
        public const int DefaultMinimumLength = 256 * 1024;

        private readonly int _maxDegree;
        private readonly int _minimumLength;

        /// <summary>Creates parallelism settings.</summary>
        /// <param name="maxDegreeOfParallelism">
        /// Most threads used on one call, the caller included: 1 is sequential; -1 means
        /// <see cref="Environment.ProcessorCount"/>.
        /// </param>
        /// <param name="minimumLength">
        /// Decoded (or, for encoding, source) length below which a call stays sequential; at least 1.
        /// </param>
        /// <exception cref="ArgumentOutOfRangeException">A degree of 0 or below -1, or a minimum length below 1.</exception>
        public Lz4Parallelism(int maxDegreeOfParallelism, int minimumLength = DefaultMinimumLength)
        {
            if (maxDegreeOfParallelism == 0 || maxDegreeOfParallelism < -1)
                throw new ArgumentOutOfRangeException(nameof(maxDegreeOfParallelism), maxDegreeOfParallelism, "The degree of parallelism must be -1 (every core) or at least 1.");
            if (minimumLength < 1)
                throw new ArgumentOutOfRangeException(nameof(minimumLength), minimumLength, "The minimum length for going parallel must be at least 1.");
            _maxDegree = maxDegreeOfParallelism;
            _minimumLength = minimumLength;
        }

        /// <summary>One thread: today's sequential behaviour. Equal to <c>default</c>.</summary>
        public static Lz4Parallelism Sequential => default;

        /// <summary>Every core (<see cref="Environment.ProcessorCount"/>) for buffers of at least <see cref="DefaultMinimumLength"/> bytes.</summary>
        public static Lz4Parallelism AllCores => new(-1);

        /// <summary>Most threads used on one call, the caller included (1 when sequential); -1 is resolved to <see cref="Environment.ProcessorCount"/>.</summary>
        public int MaxDegreeOfParallelism => _maxDegree == 0 ? 1 : _maxDegree == -1 ? Environment.ProcessorCount : _maxDegree;

        /// <summary>The smallest length that goes parallel.</summary>
        public int MinimumLength => _minimumLength == 0 ? DefaultMinimumLength : _minimumLength;

        /// <summary>Parallel work is allowed at all (more than one thread).</summary>
        public bool IsParallel => MaxDegreeOfParallelism > 1;

        /// <inheritdoc/>
        public bool Equals(Lz4Parallelism other) => MaxDegreeOfParallelism == other.MaxDegreeOfParallelism && MinimumLength == other.MinimumLength;

        /// <inheritdoc/>
        public override bool Equals(object? obj) => obj is Lz4Parallelism other && Equals(other);

        /// <inheritdoc/>
        public override int GetHashCode() => (MaxDegreeOfParallelism * 397) ^ MinimumLength;

        /// <summary>Compares two settings.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they are equal.</returns>
        public static bool operator ==(Lz4Parallelism left, Lz4Parallelism right) => left.Equals(right);

        /// <summary>Compares two settings.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they differ.</returns>
        public static bool operator !=(Lz4Parallelism left, Lz4Parallelism right) => !left.Equals(right);

        /// <inheritdoc/>
        public override string ToString() => $"MaxDegreeOfParallelism={MaxDegreeOfParallelism}, MinimumLength={MinimumLength}";
    }
}
