using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Reads another stream as it is and counts the bytes read, for the framed path's meter: the LZ4 frame stream reads
    /// its compressed input through it.
    /// </summary>
    internal sealed class CountingReadStream : Stream
    {
        private readonly Stream _inner;
        private readonly bool _leaveOpen;

        public CountingReadStream(Stream inner, bool leaveOpen)
        {
            _inner = inner;
            _leaveOpen = leaveOpen;
        }

        /// <summary>Bytes read so far.</summary>
        public long BytesRead { get; private set; }

        public override bool CanRead => _inner.CanRead;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override int Read(byte[] buffer, int offset, int count) => Counted(_inner.Read(buffer, offset, count));

        public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
#if NET
            Counted(await _inner.ReadAsync(buffer.AsMemory(offset, count), cancellationToken).ConfigureAwait(false));
#else
            Counted(await _inner.ReadAsync(buffer, offset, count, cancellationToken).ConfigureAwait(false));
#endif

#if NET
        public override int Read(Span<byte> buffer) => Counted(_inner.Read(buffer));

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
            Counted(await _inner.ReadAsync(buffer, cancellationToken).ConfigureAwait(false));
#endif

        protected override void Dispose(bool disposing)
        {
            if (disposing && !_leaveOpen)
                _inner.Dispose();
            base.Dispose(disposing);
        }

        private int Counted(int read)
        {
            if (read > 0)
                BytesRead += read;
            return read;
        }
    }
}
