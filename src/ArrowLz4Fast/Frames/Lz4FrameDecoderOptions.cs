namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Options for <see cref="Lz4FrameDecoder"/>. The default value verifies every checksum a frame carries.
    /// </summary>
    public readonly struct Lz4FrameDecoderOptions
    {
        /// <summary>Creates options.</summary>
        /// <param name="skipChecksums">
        /// Do not verify block and content checksums (liblz4's <c>skipChecksums</c>), for callers that already trust
        /// their source, e.g. data checked by a transport. Structure and sizes are still validated, and nothing is ever
        /// written outside the destination.
        /// </param>
        public Lz4FrameDecoderOptions(bool skipChecksums)
        {
            SkipChecksums = skipChecksums;
        }

        /// <summary>Block and content checksums are not verified.</summary>
        public bool SkipChecksums { get; }
    }
}
