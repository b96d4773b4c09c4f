namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// What is wrong with LZ4 data, as <see cref="Lz4FrameException.Kind"/>: one value per check the decoder makes,
    /// named after liblz4's frame error codes (<c>lz4frame.h</c>) where one matches.
    /// </summary>
    public enum Lz4FrameErrorKind
    {
        /// <summary>Not classified: an exception made without a kind, or a failure of another decoder that does not say.</summary>
        Unspecified = 0,

        /// <summary>The input ends inside a magic number, frame header, block, end mark or checksum (liblz4: <c>frameHeader_incomplete</c>, or a frame left incomplete).</summary>
        Truncated,

        /// <summary>The first bytes are not an LZ4 frame's magic number (liblz4: <c>frameType_unknown</c>); the legacy LZ4 format too.</summary>
        BadMagic,

        /// <summary>Bytes after the last frame that are not another frame.</summary>
        TrailingData,

        /// <summary>The frame header's version bits are not 01 (liblz4: <c>headerVersion_wrong</c>).</summary>
        Version,

        /// <summary>A reserved bit of the frame header's FLG or BD byte is set (liblz4: <c>reservedFlag_set</c>).</summary>
        ReservedBits,

        /// <summary>
        /// The header's block maximum size ID is undefined, or a block declares more bytes than that maximum (liblz4:
        /// <c>maxBlockSize_invalid</c>, for both).
        /// </summary>
        BlockSize,

        /// <summary>The frame header's checksum byte does not match the descriptor (liblz4: <c>headerChecksum_invalid</c>).</summary>
        HeaderChecksum,

        /// <summary>A block's checksum does not match its stored bytes (liblz4: <c>blockChecksum_invalid</c>).</summary>
        BlockChecksum,

        /// <summary>The frame's content checksum does not match the decoded bytes (liblz4: <c>contentChecksum_invalid</c>).</summary>
        ContentChecksum,

        /// <summary>The content size in the frame header differs from what the blocks decode to (liblz4: <c>frameSize_wrong</c>).</summary>
        ContentSize,

        /// <summary>A compressed block is not valid LZ4 block data within the frame's block maximum (liblz4: <c>decompressionFailed</c>).</summary>
        MalformedBlock,

        /// <summary>
        /// Well-formed data that decodes to another length than its container declares: a batch item's or an Arrow
        /// buffer's length (more than it declares, or fewer).
        /// </summary>
        DecodedLength,

        /// <summary>
        /// A frame names a dictionary that cannot be supplied: the kind of the <see cref="Lz4FrameException"/> inside
        /// the <see cref="System.NotSupportedException"/> thrown for it. <see cref="Lz4FrameException.Offset"/> is the frame's start.
        /// </summary>
        DictionaryRequired,

        /// <summary>
        /// The data around the frames is malformed (for example an Arrow IPC message or its buffer layout), not an LZ4 frame.
        /// </summary>
        Container,
    }
}
