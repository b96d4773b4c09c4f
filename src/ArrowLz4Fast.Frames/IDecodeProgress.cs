using System;

namespace ArrowLz4Fast.Frames
{
    /// <summary>Told how far a block decode's output is final (see <see cref="Lz4BlockDecoder.Decode{TProgress}(ReadOnlySpan{byte}, Span{byte}, int, ref TProgress)"/>).</summary>
    internal unsafe interface IDecodeProgress
    {
        /// <summary>Whether the decoder reports at all: a constant, so the JIT removes the reporting when false.</summary>
        bool Enabled { get; }

        /// <summary>Every output byte before <paramref name="position"/> is final.</summary>
        void Reached(byte* position);
    }

    /// <summary>No reporting: the decoder as it is without progress.</summary>
    internal unsafe struct NoProgress : IDecodeProgress
    {
        public bool Enabled => false;

        public void Reached(byte* position)
        {
        }
    }
}
