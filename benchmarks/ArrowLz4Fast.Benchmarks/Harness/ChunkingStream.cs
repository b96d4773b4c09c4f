using System;
using System.IO;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// Wraps a readable stream (a file too large to hold in memory) and hands its bytes out 1-16 KiB per Read, in the
    /// same pseudo-random sequence of sizes as <see cref="ChunkedReadStream"/>.
    /// </summary>
    public sealed class ChunkingStream : Stream
    {
        private const int MinChunk = 1024;
        private const int MaxChunk = 16 * 1024;

        private readonly Stream _inner;
        private uint _state;

        public ChunkingStream(Stream inner, uint seed = 0x2545F491)
        {
            _inner = inner;
            _state = seed == 0 ? 1 : seed;
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            // xorshift32, as ChunkedReadStream.
            _state ^= _state << 13;
            _state ^= _state >> 17;
            _state ^= _state << 5;
            int chunk = MinChunk + (int)(_state % (MaxChunk - MinChunk + 1));
            return _inner.Read(buffer.Slice(0, Math.Min(buffer.Length, chunk)));
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
                _inner.Dispose();
            base.Dispose(disposing);
        }
    }
}
