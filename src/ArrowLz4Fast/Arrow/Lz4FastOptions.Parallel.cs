using System;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast
{
    /// <summary>Parallel decode and encode settings (docs/threading.md describes the threads they use).</summary>
    public sealed partial class Lz4FastOptions
    {
        private int _maxDegreeOfParallelism = -1;
        private int _minimumParallelLength = Lz4Parallelism.DefaultMinimumLength;

        /// <summary>
        /// Most threads one <c>Decompress</c> or <c>TryCompress</c> call may use, the calling thread included: -1
        /// (default) for <see cref="Environment.ProcessorCount"/>, as Arrow C++'s <c>use_threads</c> is on by default;
        /// 1 for one thread. At most 16 threads serve one call whatever the value. Frames with two or more independent blocks decode in parallel (Arrow Java,
        /// Arrow Go, this package's writer, the lz4 CLI with <c>-BI</c>); linked frames (pyarrow, Arrow .NET's
        /// official codec) stay sequential. The output is the same bytes, and errors the same exception, either way.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">0 or below -1.</exception>
        public int MaxDegreeOfParallelism
        {
            get => _maxDegreeOfParallelism;
            set
            {
                _ = new Lz4Parallelism(value, _minimumParallelLength);
                _maxDegreeOfParallelism = value;
            }
        }

        /// <summary>
        /// Buffers shorter than this (decoded length for reading, source length for writing) stay on one thread:
        /// default 256 KiB (with the default 256 KiB blocks, every buffer of two blocks or more goes parallel).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Below 1.</exception>
        public int MinimumParallelLength
        {
            get => _minimumParallelLength;
            set
            {
                _ = new Lz4Parallelism(_maxDegreeOfParallelism, value);
                _minimumParallelLength = value;
            }
        }

        internal Lz4Parallelism Parallelism => new(_maxDegreeOfParallelism, _minimumParallelLength);
    }
}
