using System;
using System.Buffers;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Apache.Arrow.Memory;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Hands out buffers longer than requested: rented from <see cref="MemoryPool{T}.Shared"/> or
    /// <see cref="ArrayPool{T}.Shared"/>, or fresh arrays padded by a fixed count and filled with a pattern. Counts
    /// what it hands out and what comes back.
    /// </summary>
    internal sealed class LongerBufferAllocator : MemoryAllocator
    {
        private readonly string _kind;
        private readonly Dictionary<int, int> _outstanding = new();
        private int _rented;

        public LongerBufferAllocator(string kind) => _kind = kind;

        public int Rented => _rented;

        public string OutstandingLengths()
        {
            lock (_outstanding)
                return string.Join(",", _outstanding.Where(p => p.Value != 0).OrderBy(p => p.Key).Select(p => $"{p.Key}x{p.Value}"));
        }

        protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
        {
            Interlocked.Increment(ref _rented);
            lock (_outstanding)
                _outstanding[length] = _outstanding.TryGetValue(length, out int n) ? n + 1 : 1;
            IMemoryOwner<byte> owner = _kind switch
            {
                "MemoryPool" => MemoryPool<byte>.Shared.Rent(length),
                "ArrayPool" => new ArrayPoolOwner(ArrayPool<byte>.Shared.Rent(length)),
                _ => new ArrayPoolOwner(Padded(length + int.Parse(_kind.AsSpan(3), System.Globalization.CultureInfo.InvariantCulture)), pooled: false),
            };
            bytesAllocated = owner.Memory.Length;
            return new Tracked(owner, this, length);
        }

        private static byte[] Padded(int length)
        {
            byte[] array = new byte[length];
            array.AsSpan().Fill(0xCD);
            return array;
        }

        private void Returned(int length)
        {
            lock (_outstanding)
                _outstanding[length]--;
        }

        private sealed class Tracked : IMemoryOwner<byte>
        {
            private readonly LongerBufferAllocator _allocator;
            private readonly int _length;
            private IMemoryOwner<byte>? _inner;

            public Tracked(IMemoryOwner<byte> inner, LongerBufferAllocator allocator, int length)
            {
                _inner = inner;
                _allocator = allocator;
                _length = length;
                Assert.True(inner.Memory.Length >= length);
            }

            public Memory<byte> Memory => (_inner ?? throw new ObjectDisposedException(nameof(Tracked))).Memory;

            public void Dispose()
            {
                IMemoryOwner<byte>? inner = Interlocked.Exchange(ref _inner, null);
                if (inner is null)
                    return;
                inner.Dispose();
                _allocator.Returned(_length);
            }
        }

        private sealed class ArrayPoolOwner : IMemoryOwner<byte>
        {
            private readonly byte[] _array;
            private readonly bool _pooled;

            public ArrayPoolOwner(byte[] array, bool pooled = true)
            {
                _array = array;
                _pooled = pooled;
            }

            public Memory<byte> Memory => _array;

            public void Dispose()
            {
                if (_pooled)
                    ArrayPool<byte>.Shared.Return(_array);
            }
        }
    }
}
