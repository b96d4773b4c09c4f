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
            Parallelism = default;
        }

        /// <summary>Creates options with parallel decode settings.</summary>
        /// <param name="skipChecksums">Do not verify block and content checksums (see the other constructor).</param>
        /// <param name="parallelism">Threads for frames with independent blocks; <see cref="Lz4Parallelism.Sequential"/> is one.</param>
        public Lz4FrameDecoderOptions(bool skipChecksums, Lz4Parallelism parallelism)
        {
            SkipChecksums = skipChecksums;
            Parallelism = parallelism;
        }

        /// <summary>Block and content checksums are not verified.</summary>
        public bool SkipChecksums { get; }

        /// <summary>Parallel decode of frames with independent blocks; sequential by default.</summary>
        public Lz4Parallelism Parallelism { get; }
    }
}
