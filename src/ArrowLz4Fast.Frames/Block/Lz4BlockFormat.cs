namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The LZ4 block format's constants (lz4 <c>doc/lz4_Block_format.md</c>, liblz4's names), shared by the block
    /// decoder and the block encoder.
    /// </summary>
    internal static class Lz4BlockFormat
    {
        /// <summary>The shortest match.</summary>
        internal const int MinMatch = 4;

        /// <summary>A block ends with at least this many literals.</summary>
        internal const int LastLiterals = 5;

        /// <summary>The last match starts at least this many bytes before the end of the block.</summary>
        internal const int MfLimit = 12;

        /// <summary>A token's literal-length field at its maximum: length bytes follow.</summary>
        internal const uint RunMask = 15;

        /// <summary>A token's match-length field at its maximum: length bytes follow.</summary>
        internal const uint MlMask = 15;

        /// <summary>The bits of a token's match-length field (the literal length is above them).</summary>
        internal const int MlBits = 4;
    }
}
