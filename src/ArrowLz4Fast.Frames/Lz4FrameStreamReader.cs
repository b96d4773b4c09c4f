using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Frames
{
    /// <summary>The decoding half of <see cref="Lz4FrameStream"/>: incremental frame parsing over an inner stream.</summary>
    internal sealed class Lz4FrameStreamReader : IDisposable
    {
        private readonly Stream _stream;
        private readonly Lz4FrameDecoderOptions _options;

        public Lz4FrameStreamReader(Stream stream, Lz4FrameDecoderOptions options)
        {
            _stream = stream;
            _options = options;
        }

        /// <summary>Decodes into <paramref name="buffer"/>; 0 only at the end of the last frame (or for an empty buffer).</summary>
        public int Read(Span<byte> buffer) => throw new NotImplementedException();

        /// <summary>The asynchronous <see cref="Read"/>.</summary>
        public ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken) => throw new NotImplementedException();

        /// <summary>Returns pooled memory.</summary>
        public void Dispose()
        {
        }
    }
}
