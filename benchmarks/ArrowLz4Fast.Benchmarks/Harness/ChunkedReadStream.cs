using System;
using System.IO;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// A read-only stream that hands out its bytes in small pieces of a fixed pseudo-random sequence of sizes
    /// (1 to 16 KiB), like a socket does, so a reader has to assemble messages across many short reads.
    /// The sequence depends only on the seed: every run and both codecs see the same chunking.
    /// </summary>
    public sealed class ChunkedReadStream : Stream
    {
        private const int MinChunk = 1024;
        private const int MaxChunk = 16 * 1024;

        private readonly byte[] _data;
        private readonly uint _seed;
        private uint _state;
        private int _position;

        public ChunkedReadStream(byte[] data, uint seed = 0x2545F491)
        {
            _data = data;
            _seed = seed == 0 ? 1 : seed;
            _state = _seed;
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => _position;
            set => throw new NotSupportedException();
        }

        /// <summary>Starts over from the first byte with the same chunk sequence.</summary>
        public void Rewind()
        {
            _position = 0;
            _state = _seed;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int n = Math.Min(Math.Min(buffer.Length, NextChunk()), _data.Length - _position);
            _data.AsSpan(_position, n).CopyTo(buffer);
            _position += n;
            return n;
        }

        private int NextChunk()
        {
            // xorshift32: cheap, allocation-free and identical on every platform.
            _state ^= _state << 13;
            _state ^= _state >> 17;
            _state ^= _state << 5;
            return MinChunk + (int)(_state % (MaxChunk - MinChunk + 1));
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
