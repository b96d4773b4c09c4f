namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// What <see cref="Lz4FrameStreamReader"/>'s step functions return: a count of buffered bytes the next token needs
    /// before it can be parsed, or one of these. A fill then reads until that many are buffered (or the stream ends).
    /// </summary>
    internal static class Lz4StreamNeed
    {
        /// <summary>Nothing: the token was handled (or, from the whole step, the last frame has ended).</summary>
        public const int None = 0;

        /// <summary>At least one more byte (the user data of a skippable frame, consumed as it comes).</summary>
        public const int AnyByte = 1;

        /// <summary>The rest of the inner stream, to count it: a bad magic number's message says how many bytes followed.</summary>
        public const int DrainToEnd = -1;
    }
}
