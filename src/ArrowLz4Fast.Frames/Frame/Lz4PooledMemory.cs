using System;
using System.Buffers;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>Decoded bytes in an array rented from <see cref="ArrayPool{T}.Shared"/>, returned once at Dispose.</summary>
    internal sealed class Lz4PooledMemory : IMemoryOwner<byte>
    {
        private byte[]? _array;
        private readonly int _length;

        public Lz4PooledMemory(byte[] array, int length)
        {
            _array = array;
            _length = length;
        }

        public Memory<byte> Memory
        {
            get
            {
                byte[]? array = _array;
                if (array == null)
                    throw new ObjectDisposedException(nameof(Lz4PooledMemory));
                return new Memory<byte>(array, 0, _length);
            }
        }

        public void Dispose()
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array != null)
                ArrayPool<byte>.Shared.Return(array);
        }
    }
}
