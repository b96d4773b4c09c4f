using System;
using System.IO;

namespace ArrowLz4Fast
{
    /// <summary>
    /// A read-only, seekable stream over a <see cref="ReadOnlyMemory{T}"/>, whatever backs it (Arrow's buffers are often
    /// native memory): the K4os path tells from it how much of the input K4os's frame decoder read, and
    /// <see cref="IpcDecompressingStream"/> takes message bodies from it without copying them (<see cref="TryTake"/>).
    /// </summary>
    internal sealed class ReadOnlyMemoryStream : Stream
    {
        private readonly ReadOnlyMemory<byte> _memory;
        private int _position;

        public ReadOnlyMemoryStream(ReadOnlyMemory<byte> memory) => _memory = memory;

        public override bool CanRead => true;

        public override bool CanSeek => true;

        public override bool CanWrite => false;

        public override long Length => _memory.Length;

        public override long Position
        {
            get => _position;
            set => Seek(value, SeekOrigin.Begin);
        }

        /// <summary>The next <paramref name="length"/> bytes, read past without a copy; false (and nothing read) when fewer remain.</summary>
        public bool TryTake(int length, out ReadOnlyMemory<byte> bytes)
        {
            if (length < 0 || length > _memory.Length - _position)
            {
                bytes = default;
                return false;
            }
            bytes = _memory.Slice(_position, length);
            _position += length;
            return true;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

#if NETSTANDARD2_0
        public int Read(Span<byte> buffer)
#else
        public override int Read(Span<byte> buffer)
#endif
        {
            int n = Math.Min(buffer.Length, _memory.Length - _position);
            _memory.Span.Slice(_position, n).CopyTo(buffer);
            _position += n;
            return n;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin)
        {
            long target = origin switch
            {
                SeekOrigin.Begin => offset,
                SeekOrigin.Current => _position + offset,
                SeekOrigin.End => _memory.Length + offset,
                _ => throw new ArgumentOutOfRangeException(nameof(origin)),
            };
            // As MemoryStream: a position before the start is an error, one past the end reads nothing.
            if (target < 0)
                throw new IOException("An attempt was made to move the position before the beginning of the stream.");
            _position = (int)Math.Min(target, _memory.Length);
            return _position;
        }

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
