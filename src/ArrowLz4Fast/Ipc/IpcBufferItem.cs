namespace ArrowLz4Fast.Ipc
{
    /// <summary>One body buffer: where its bytes are in the compressed body and where they go in the decompressed one.</summary>
    internal struct IpcBufferItem
    {
        /// <summary>Offset of the frame (or raw bytes) in the compressed body, after the 8-byte prefix.</summary>
        public int Source;

        public int SourceLength;

        /// <summary>Offset in the decompressed body (8-byte aligned).</summary>
        public int Destination;

        /// <summary>Decompressed length.</summary>
        public int Length;

        /// <summary>Stored raw (-1 prefix) or empty: copied, not decoded.</summary>
        public bool Raw;

        /// <summary>
        /// How many bytes of the input's body before this buffer a projection left out of the compacted body it was
        /// gathered into; 0 for a body read whole. Errors add it, so that their offsets count in the input.
        /// </summary>
        public int Skipped;

        /// <summary>Where <see cref="Source"/> is in the input, for a body starting at <paramref name="bodyOffset"/>.</summary>
        public readonly long InInput(long bodyOffset) => bodyOffset + Skipped + Source;

        /// <summary>How many of the first <paramref name="count"/> items are LZ4 frames to decode, counted only when something listens to the buffer counter.</summary>
        public static int Frames(IpcBufferItem[] items, int count)
        {
            int frames = 0;
            for (int i = 0; i < count && ArrowLz4FastMetrics.CountsBuffers; i++)
            {
                if (!items[i].Raw && items[i].SourceLength > 0)
                    frames++;
            }
            return frames;
        }
    }
}
