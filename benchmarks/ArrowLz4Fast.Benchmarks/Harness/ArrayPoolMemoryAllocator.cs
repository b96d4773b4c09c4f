using System;
using System.Buffers;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The plain pooled allocator a user would write first: managed arrays from <see cref="ArrayPool{T}.Shared"/>,
    /// cleared like fresh memory. Arrow's default NativeMemoryAllocator reports every buffer to GC.AddMemoryPressure,
    /// which makes the runtime run induced gen-2 collections during a read; this one does not. It is fast while the
    /// pool holds enough arrays of each size, but the shared pool keeps only a few per size and per core, so a batch
    /// with hundreds of live buffers (200 columns) falls back to fresh arrays, large ones on the LOH. Labelled
    /// "arraypool" in the benchmarks; the package's own allocator is "slab".
    /// </summary>
    public sealed class ArrayPoolMemoryAllocator : MemoryAllocator
    {
        protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
        {
            bytesAllocated = length;
            return new Owner(length);
        }

        private sealed class Owner : MemoryManager<byte>
        {
            private byte[]? _array;
            private readonly int _length;

            public Owner(int length)
            {
                _array = ArrayPool<byte>.Shared.Rent(length);
                _length = length;
                // Cleared like fresh memory, so no bytes of an earlier read can show through a buffer's padding.
                _array.AsSpan(0, length).Clear();
            }

            public override Span<byte> GetSpan() => _array.AsSpan(0, _length);

            public override MemoryHandle Pin(int elementIndex = 0) => throw new NotSupportedException();

            public override void Unpin()
            {
            }

            protected override void Dispose(bool disposing)
            {
                byte[]? array = _array;
                _array = null;
                if (array != null)
                    ArrayPool<byte>.Shared.Return(array);
            }
        }
    }
}
