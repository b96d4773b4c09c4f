using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Frames
{
    /// <summary>The encoding half of <see cref="Lz4FrameStream"/>: buffers content into blocks and writes one frame.</summary>
    internal sealed class Lz4FrameStreamWriter : IDisposable
    {
        private readonly Stream _stream;
        private readonly Lz4FrameEncoderOptions _options;

        public Lz4FrameStreamWriter(Stream stream, Lz4FrameEncoderOptions options)
        {
            _stream = stream;
            _options = options;
        }

        /// <summary>Adds <paramref name="buffer"/> to the frame.</summary>
        public void Write(ReadOnlySpan<byte> buffer) => throw new NotImplementedException();

        /// <summary>The asynchronous <see cref="Write"/>.</summary>
        public ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken) => throw new NotImplementedException();

        /// <summary>Ends the current block (as LZ4F's flush does) and flushes the inner stream.</summary>
        public void Flush() => throw new NotImplementedException();

        /// <summary>The asynchronous <see cref="Flush"/>.</summary>
        public Task FlushAsync(CancellationToken cancellationToken) => throw new NotImplementedException();

        /// <summary>Writes what is buffered, the end mark and the content checksum; only the first call does anything.</summary>
        public void Finish() => throw new NotImplementedException();

        /// <summary>The asynchronous <see cref="Finish"/>.</summary>
        public ValueTask FinishAsync() => throw new NotImplementedException();

        /// <summary>Returns pooled memory.</summary>
        public void Dispose()
        {
        }
    }
}
