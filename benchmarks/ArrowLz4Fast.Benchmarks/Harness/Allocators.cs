using System;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>The allocators the end-to-end benchmarks compare, by the name they carry in the result tables.</summary>
    public static class Allocators
    {
        /// <summary>Arrow's default NativeMemoryAllocator: malloc, zero-fill and GC.AddMemoryPressure per buffer.</summary>
        public const string Native = "native";

        /// <summary>A plain allocator over ArrayPool&lt;byte&gt;.Shared (<see cref="ArrayPoolMemoryAllocator"/>).</summary>
        public const string ArrayPool = "arraypool";

        /// <summary>The package's <see cref="SlabMemoryAllocator"/> with its default options.</summary>
        public const string Slab = "slab";

        /// <summary>
        /// The <see cref="SlabMemoryAllocator"/> with <see cref="SlabMemoryAllocatorOptions.ClearBuffers"/> off: what the
        /// opt-out saves. Not in <see cref="All"/>, the allocators the end-to-end tables compare.
        /// </summary>
        public const string SlabNoClear = "slab-noclear";

        public static readonly string[] All = { Native, ArrayPool, Slab };

        /// <summary>A new allocator of the kind; Arrow's shared default for <see cref="Native"/>.</summary>
        public static MemoryAllocator Create(string name) => name switch
        {
            Native => MemoryAllocator.Default.Value,
            ArrayPool => new ArrayPoolMemoryAllocator(),
            Slab => new SlabMemoryAllocator(),
            SlabNoClear => new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { ClearBuffers = false }),
            _ => throw new ArgumentOutOfRangeException(nameof(name), name, "unknown allocator"),
        };
    }
}
