namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Brings more of a batch's source for <see cref="Lz4FrameDecoder.DecodeBatchArriving"/>: writes the next bytes
    /// after the first <paramref name="arrived"/> into the source's memory and returns how many of its first bytes are
    /// there now.
    /// </summary>
    /// <param name="arrived">How many of the source's first bytes are there.</param>
    /// <returns>How many are there after this call: more than <paramref name="arrived"/>, at most the source's length.</returns>
    internal delegate int Lz4BatchSourceFill(int arrived);
}
