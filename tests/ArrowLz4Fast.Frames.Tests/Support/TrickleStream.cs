using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// An inner stream that hands out at most a random few bytes per read, and sometimes completes asynchronous reads
    /// later. The fuzzer's <c>--stream</c> mode compiles this file too (linked from its project).
    /// </summary>
    internal sealed class TrickleStream : Stream
    {
        private readonly byte[] _data;
        private readonly Random _random;
        private readonly int _maxChunk;
        private readonly bool _completeLater;
        private int _position;

        public TrickleStream(byte[] data, int seed, int maxChunk)
            : this(data, new Random(seed), maxChunk, completeLater: true)
        {
        }

        /// <param name="data">What the stream holds.</param>
        /// <param name="random">Draws the chunk sizes (and which async reads complete later).</param>
        /// <param name="maxChunk">The most bytes one read hands out.</param>
        /// <param name="completeLater">
        /// Let one async read in four complete after a thread-pool hop; the fuzzer turns this off, because a hop per read
        /// would put its watchdog's second at the mercy of machine load.
        /// </param>
        public TrickleStream(byte[] data, Random random, int maxChunk, bool completeLater)
        {
            _data = data;
            _random = random;
            _maxChunk = maxChunk;
            _completeLater = completeLater;
        }

        public bool Disposed { get; private set; }

        public override bool CanRead => true;
        public override bool CanSeek => false;
        public override bool CanWrite => false;
        public override long Length => throw new NotSupportedException();
        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int n = Math.Min(Math.Min(buffer.Length, _data.Length - _position), _random.Next(1, _maxChunk + 1));
            _data.AsSpan(_position, n).CopyTo(buffer);
            _position += n;
            return n;
        }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (_completeLater && _random.Next(4) == 0)
                await Task.Yield();
            cancellationToken.ThrowIfCancellationRequested();
            return Read(buffer.Span);
        }

        protected override void Dispose(bool disposing)
        {
            Disposed = true;
            base.Dispose(disposing);
        }
    }
}
