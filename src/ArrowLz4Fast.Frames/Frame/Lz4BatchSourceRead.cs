namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Brings one item's source range for <see cref="Lz4FrameDecoder.DecodeBatchReading"/>: writes the
    /// <paramref name="count"/> bytes at <paramref name="offset"/> of the source into the source's memory there. It
    /// runs on the thread that claimed the item, possibly on several threads at once for ranges that do not overlap.
    /// </summary>
    /// <param name="offset">Where the range starts in the source.</param>
    /// <param name="count">The range's length.</param>
    internal delegate void Lz4BatchSourceRead(int offset, int count);
}
