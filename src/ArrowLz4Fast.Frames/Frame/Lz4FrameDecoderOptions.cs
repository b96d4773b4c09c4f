namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Options for <see cref="Lz4FrameDecoder"/>. The default value verifies every checksum a frame carries.
    /// </summary>
    public readonly struct Lz4FrameDecoderOptions
    {
        // Stored inverted so that default(Lz4FrameDecoderOptions) verifies.
        private readonly bool _skipChecksums;

        /// <summary>Creates options.</summary>
        /// <param name="verifyChecksums">
        /// Verify block and content checksums (default <see langword="true"/>). <see langword="false"/> is liblz4's
        /// <c>skipChecksums</c>, for callers that already trust their source, e.g. data checked by a transport.
        /// Structure and sizes are validated either way, and nothing is ever written outside the destination.
        /// </param>
        /// <param name="parallelism">
        /// Threads for frames with independent blocks (the span decoder's parallel decode, and
        /// <see cref="Lz4FrameStream"/>'s read-ahead); <see langword="default"/> (<see cref="Lz4Parallelism.Sequential"/>)
        /// decodes on the calling thread only.
        /// </param>
        public Lz4FrameDecoderOptions(bool verifyChecksums = true, Lz4Parallelism parallelism = default)
        {
            _skipChecksums = !verifyChecksums;
            Parallelism = parallelism;
        }

        /// <summary>Block and content checksums are verified (the same name and sense as <c>Lz4FastOptions.VerifyChecksums</c>).</summary>
        public bool VerifyChecksums => !_skipChecksums;

        /// <summary>Parallel decode of frames with independent blocks; sequential by default.</summary>
        public Lz4Parallelism Parallelism { get; }
    }
}
