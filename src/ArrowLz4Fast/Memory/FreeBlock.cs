namespace ArrowLz4Fast.Memory
{
    /// <summary>A block waiting in a free list, or being handed to a new owner.</summary>
    internal readonly struct FreeBlock
    {
        public FreeBlock(Slab slab, nint address, int generation, int dirty)
        {
            Slab = slab;
            Address = address;
            Generation = generation;
            Dirty = dirty;
        }

        public Slab Slab { get; }

        /// <summary>First byte, 64-byte aligned.</summary>
        public nint Address { get; }

        /// <summary>The slab generation the block belongs to; stale once the slab has moved on.</summary>
        public int Generation { get; }

        /// <summary>
        /// Length of the prefix that may hold bytes of an earlier buffer: the most any owner of the block was given since
        /// the memory was last known zero. Past it the block is still zero, so a new owner's buffer is cleared only up to
        /// here, and a block fresh from the OS is not cleared at all.
        /// </summary>
        public int Dirty { get; }
    }
}
