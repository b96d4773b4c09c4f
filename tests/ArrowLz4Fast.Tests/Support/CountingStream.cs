using System;
using System.IO;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>A stream over bytes that counts what is read from it; seekable or not.</summary>
    internal sealed class CountingStream : Stream
    {
        private readonly byte[] _bytes;
        private readonly bool _seekable;
        private long _position;

        public CountingStream(byte[] bytes, bool seekable = true)
        {
            _bytes = bytes;
            _seekable = seekable;
        }

        public long BytesRead { get; private set; }

        /// <summary>How many reads were asked for.</summary>
        public int Reads { get; private set; }

        public override bool CanRead => true;

        public override bool CanSeek => _seekable;

        public override bool CanWrite => false;

        public override long Length => _seekable ? _bytes.Length : throw new NotSupportedException();

        public override long Position
        {
            get => _seekable ? _position : throw new NotSupportedException();
            set => _position = _seekable ? value : throw new NotSupportedException();
        }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            Reads++;
            int n = (int)Math.Max(0, Math.Min(count, _bytes.Length - _position));
            System.Array.Copy(_bytes, _position, buffer, offset, n);
            _position += n;
            BytesRead += n;
            return n;
        }

        public override long Seek(long offset, SeekOrigin origin) =>
            Position = origin switch { SeekOrigin.Begin => offset, SeekOrigin.Current => _position + offset, _ => _bytes.Length + offset };

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
