namespace ArrowLz4Fast.Frames
{
    /// <summary>How <see cref="Lz4FrameDecoder.Decode(System.ReadOnlySpan{byte}, System.Span{byte}, out int, out int, Lz4FrameDecoderOptions)"/> ended when the input was well-formed.</summary>
    public enum Lz4FrameDecodeStatus
    {
        /// <summary>Every frame was decoded and checked; the output is complete.</summary>
        Done = 0,

        /// <summary>
        /// The decoded content does not fit in the destination. Bytes consumed is the offset of the block that did not
        /// fit; bytes written counts the complete output before it.
        /// </summary>
        DestinationTooSmall,

        /// <summary>
        /// A frame names a dictionary (its header has a dictionary ID) that the caller did not supply. Bytes consumed is
        /// that frame's offset; bytes written counts the output of the frames before it.
        /// </summary>
        DictionaryRequired,
    }
}
