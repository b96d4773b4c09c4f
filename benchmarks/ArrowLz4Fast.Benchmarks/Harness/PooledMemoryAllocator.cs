using System;
using System.Buffers;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// An Arrow allocator over <see cref="ArrayPool{T}.Shared"/>. Arrow's default NativeMemoryAllocator reports every
    /// buffer to GC.AddMemoryPressure, which makes the runtime run induced gen-2 collections during a read; their
    /// number varies from run to run and swamps the decode work. With this allocator the replay measures the read.
    /// </summary>
    public sealed class PooledMemoryAllocator : MemoryAllocator
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
