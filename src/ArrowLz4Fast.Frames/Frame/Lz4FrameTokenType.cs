namespace ArrowLz4Fast.Frames
{
    /// <summary>What <see cref="Lz4FrameReader.Read"/> stopped at.</summary>
    public enum Lz4FrameTokenType : byte
    {
        /// <summary>Nothing has been read yet.</summary>
        None = 0,

        /// <summary>A frame header; <see cref="Lz4FrameReader.Frame"/> describes it.</summary>
        FrameHeader,

        /// <summary>A data block of the current frame; see <see cref="Lz4FrameReader.BlockData"/>.</summary>
        Block,

        /// <summary>The end mark of the current frame, with its content checksum when the frame has one.</summary>
        FrameEnd,

        /// <summary>A skippable frame; <see cref="Lz4FrameReader.SkippableData"/> holds its user data.</summary>
        SkippableFrame,
    }
}
