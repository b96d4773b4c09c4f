using System;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// A batch encode begun by <see cref="Lz4FrameEncoder.StartEncodeBatch"/>: helper threads may be encoding its items
    /// while the thread that started it does other work. <see cref="Complete"/> it once; until then the batch's source,
    /// destination, items and lengths must stay as they were given, unread and unchanged.
    /// </summary>
    public readonly struct Lz4FrameBatchEncoding : IEquatable<Lz4FrameBatchEncoding>
    {
        private readonly Lz4FrameEncodeBatchJob? _job;
        private readonly int _generation;
        private readonly bool _fits;
        private readonly bool _started;

        internal Lz4FrameBatchEncoding(Lz4FrameEncodeBatchJob job)
        {
            _job = job;
            _generation = job.Generation;
            _fits = false;
            _started = true;
        }

        internal Lz4FrameBatchEncoding(bool fits)
        {
            _job = null;
            _generation = 0;
            _fits = fits;
            _started = true;
        }

        /// <summary>The job of a batch running on helpers and not yet completed, or null.</summary>
        internal Lz4FrameEncodeBatchJob? RunningJob => _job is not null && _job.Generation == _generation && _job.IsPending ? _job : null;

        /// <summary>Whether the batch runs on helper threads (otherwise it was encoded when it was started).</summary>
        public bool IsParallel => _job is not null;

        /// <summary>
        /// Encodes, on the calling thread, every item no helper has claimed, then waits for the items helpers are
        /// encoding: once it returns, no thread touches the batch's memory, and every item's frame length is in the
        /// lengths given at the start (0 for an item whose frame did not fit).
        /// </summary>
        /// <returns><see langword="false"/> when some item's frame does not fit its destination range.</returns>
        /// <exception cref="InvalidOperationException">
        /// The batch ran on helpers and was completed before, or this value was not returned by
        /// <see cref="Lz4FrameEncoder.StartEncodeBatch"/>. (For a batch encoded when it was started, a second call only
        /// returns the result again.)
        /// </exception>
        public bool Complete()
        {
            if (!_started)
                throw new InvalidOperationException("This batch encode was not started by Lz4FrameEncoder.StartEncodeBatch.");
            if (_job is null)
                return _fits;
            if (_job.Generation != _generation || !_job.IsPending)
                throw new InvalidOperationException("This batch encode was completed already.");
            return _job.Complete();
        }

        /// <inheritdoc/>
        public bool Equals(Lz4FrameBatchEncoding other) =>
            ReferenceEquals(_job, other._job) && _generation == other._generation && _fits == other._fits && _started == other._started;

        /// <inheritdoc/>
        public override bool Equals(object? obj) => obj is Lz4FrameBatchEncoding other && Equals(other);

        /// <inheritdoc/>
        public override int GetHashCode() => ((_job?.GetHashCode() ?? 0) * 397) ^ _generation;

        /// <summary>Compares two values.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they stand for the same batch encode.</returns>
        public static bool operator ==(Lz4FrameBatchEncoding left, Lz4FrameBatchEncoding right) => left.Equals(right);

        /// <summary>Compares two values.</summary>
        /// <param name="left">One.</param>
        /// <param name="right">The other.</param>
        /// <returns>Whether they differ.</returns>
        public static bool operator !=(Lz4FrameBatchEncoding left, Lz4FrameBatchEncoding right) => !left.Equals(right);
    }
}
