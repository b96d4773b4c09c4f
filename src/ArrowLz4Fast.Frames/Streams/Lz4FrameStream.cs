using System;
using System.Buffers;
using System.IO;
using System.IO.Compression;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Reads or writes LZ4 frames through a <see cref="Stream"/>, in the manner of <c>BrotliStream</c> and
    /// <c>GZipStream</c>: <see cref="CompressionMode.Decompress"/> decodes the frames the inner stream holds,
    /// <see cref="CompressionMode.Compress"/> writes one frame to it.
    /// </summary>
    public sealed class Lz4FrameStream : Stream
    {
        private readonly Stream _stream;
        private readonly bool _leaveOpen;
        private Lz4FrameStreamReader? _reader;
        private Lz4FrameStreamWriter? _writer;
        private bool _disposed;

        // A stream's frame is a file or a transfer that nothing else checks: without the checksum a flipped byte most
        // often decodes silently to a wrong byte. The lz4 command line writes it by default too.
        internal static readonly Lz4FrameEncoderOptions CompressDefaults = new(contentChecksum: true);

        /// <summary>
        /// Decodes from, or encodes to, <paramref name="stream"/> with the default options, and disposes it when disposed.
        /// Compression writes the <c>lz4</c> command line's frame: 256 KiB independent blocks, level 0, and a content
        /// checksum, as <c>new Lz4FrameEncoderOptions(contentChecksum: true)</c>.
        /// </summary>
        /// <param name="stream">The stream of LZ4 frames to read, or to write the frame to.</param>
        /// <param name="mode">Whether to decompress (read) or compress (write).</param>
        public Lz4FrameStream(Stream stream, CompressionMode mode)
            : this(stream, mode, leaveOpen: false)
        {
        }

        /// <summary>Decodes from, or encodes to, <paramref name="stream"/> with the default options (for compression, with a content checksum).</summary>
        /// <param name="stream">The stream of LZ4 frames to read, or to write the frame to.</param>
        /// <param name="mode">Whether to decompress (read) or compress (write).</param>
        /// <param name="leaveOpen">Leave <paramref name="stream"/> open when this stream is disposed.</param>
        public Lz4FrameStream(Stream stream, CompressionMode mode, bool leaveOpen)
        {
            _stream = stream ?? throw new ArgumentNullException(nameof(stream));
            _leaveOpen = leaveOpen;
            switch (mode)
            {
                case CompressionMode.Decompress:
                    _reader = new Lz4FrameStreamReader(Readable(stream), default);
                    break;
                case CompressionMode.Compress:
                    _writer = new Lz4FrameStreamWriter(Writable(stream), CompressDefaults);
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(mode), mode, "Not a compression mode.");
            }
        }

        /// <summary>Decodes the LZ4 frames <paramref name="stream"/> holds, and disposes it when disposed.</summary>
        /// <param name="stream">The stream of LZ4 frames.</param>
        /// <param name="options">
        /// Checksum verification, and parallelism: with more than one thread, complete blocks of independent-block
        /// frames that the inner stream has already delivered are decoded ahead on helper threads (docs/streams.md).
        /// </param>
        public Lz4FrameStream(Stream stream, Lz4FrameDecoderOptions options)
            : this(stream, options, leaveOpen: false)
        {
        }

        /// <summary>Decodes the LZ4 frames <paramref name="stream"/> holds.</summary>
        /// <param name="stream">The stream of LZ4 frames.</param>
        /// <param name="options">
        /// Checksum verification, and parallelism: with more than one thread, complete blocks of independent-block
        /// frames that the inner stream has already delivered are decoded ahead on helper threads (docs/streams.md).
        /// </param>
        /// <param name="leaveOpen">Leave <paramref name="stream"/> open when this stream is disposed.</param>
        public Lz4FrameStream(Stream stream, Lz4FrameDecoderOptions options, bool leaveOpen)
            : this(stream, leaveOpen, new Lz4FrameStreamReader(Readable(stream), options), writer: null)
        {
        }

        /// <summary>Writes one LZ4 frame to <paramref name="stream"/>, and disposes it when disposed.</summary>
        /// <param name="stream">The stream the frame is written to.</param>
        /// <param name="options">Frame settings and parallelism.</param>
        public Lz4FrameStream(Stream stream, Lz4FrameEncoderOptions options)
            : this(stream, options, leaveOpen: false)
        {
        }

        /// <summary>Writes one LZ4 frame to <paramref name="stream"/>.</summary>
        /// <param name="stream">The stream the frame is written to.</param>
        /// <param name="options">Frame settings and parallelism.</param>
        /// <param name="leaveOpen">Leave <paramref name="stream"/> open when this stream is disposed.</param>
        public Lz4FrameStream(Stream stream, Lz4FrameEncoderOptions options, bool leaveOpen)
            : this(stream, leaveOpen, reader: null, new Lz4FrameStreamWriter(Writable(stream), options))
        {
        }

        private Lz4FrameStream(Stream stream, bool leaveOpen, Lz4FrameStreamReader? reader, Lz4FrameStreamWriter? writer)
        {
            _stream = stream;
            _leaveOpen = leaveOpen;
            _reader = reader;
            _writer = writer;
        }

        private static Stream Readable(Stream stream)
        {
            if (stream is null) throw new ArgumentNullException(nameof(stream));
            if (!stream.CanRead) throw new ArgumentException("The stream must be readable to decompress from it.", nameof(stream));
            return stream;
        }

        private static Stream Writable(Stream stream)
        {
            if (stream is null) throw new ArgumentNullException(nameof(stream));
            if (!stream.CanWrite) throw new ArgumentException("The stream must be writable to compress to it.", nameof(stream));
            return stream;
        }

#if NETCOREAPP2_0_OR_GREATER || NETSTANDARD2_1_OR_GREATER
        /// <summary>
        /// Decompresses the rest of the stream into <paramref name="destination"/>. Once the frame's block size is known
        /// the pooled buffer grows to a whole block (without read-ahead), so blocks are decoded straight into it rather
        /// than through the stream's window: <paramref name="bufferSize"/> is only where it starts.
        /// </summary>
        /// <param name="destination">The stream the decompressed bytes are written to.</param>
        /// <param name="bufferSize">The size of the first buffer; a positive number.</param>
        public override void CopyTo(Stream destination, int bufferSize)
        {
            ValidateCopyArguments(destination, bufferSize);
            Lz4FrameStreamReader reader = Reader();
            byte[] buffer = ArrayPool<byte>.Shared.Rent(bufferSize);
            try
            {
                int n;
                while ((n = reader.Read(CopyTarget(reader, buffer).Span)) > 0)
                {
                    destination.Write(buffer, 0, n);
                    buffer = GrowCopyBuffer(reader, buffer);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
#endif

        /// <summary>
        /// Decompresses the rest of the stream into <paramref name="destination"/> asynchronously, with a pooled buffer
        /// that grows to whole blocks as <see cref="Stream.CopyTo(Stream, int)"/> does here.
        /// </summary>
        /// <param name="destination">The stream the decompressed bytes are written to.</param>
        /// <param name="bufferSize">The size of the first buffer; a positive number.</param>
        /// <param name="cancellationToken">Cancels the copy.</param>
        /// <returns>The copy.</returns>
        public override Task CopyToAsync(Stream destination, int bufferSize, CancellationToken cancellationToken)
        {
            ValidateCopyArguments(destination, bufferSize);
            Lz4FrameStreamReader reader = Reader();
            return CopyToAsyncCore(reader, destination, bufferSize, cancellationToken);
        }

        private static async Task CopyToAsyncCore(Lz4FrameStreamReader reader, Stream destination, int bufferSize, CancellationToken cancellationToken)
        {
            byte[] buffer = ArrayPool<byte>.Shared.Rent(bufferSize);
            try
            {
                int n;
                while ((n = await reader.ReadAsync(CopyTarget(reader, buffer), cancellationToken).ConfigureAwait(false)) > 0)
                {
#if NETCOREAPP2_1_OR_GREATER || NETSTANDARD2_1_OR_GREATER
                    await destination.WriteAsync(buffer.AsMemory(0, n), cancellationToken).ConfigureAwait(false);
#else
                    await destination.WriteAsync(buffer, 0, n, cancellationToken).ConfigureAwait(false);
#endif
                    buffer = GrowCopyBuffer(reader, buffer);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        /// <summary>
        /// What of <paramref name="buffer"/> the next read of a copy fills: the output waiting in the windows, when there is
        /// some, so that the read after it starts at a block with the whole buffer free, where blocks decode in place.
        /// </summary>
        private static Memory<byte> CopyTarget(Lz4FrameStreamReader reader, byte[] buffer)
        {
            long waiting = reader.BufferedOutput;
            return waiting > 0 && waiting < buffer.Length ? buffer.AsMemory(0, (int)waiting) : buffer;
        }

        /// <summary>Trades <paramref name="buffer"/> for a larger pooled one when the current frame's blocks would not fit whole.</summary>
        private static byte[] GrowCopyBuffer(Lz4FrameStreamReader reader, byte[] buffer)
        {
            int wanted = reader.WholeBlocksReadSize;
            if (wanted <= buffer.Length)
                return buffer;
            // Rented before the old one goes back: if the rent throws, the caller's finally returns the old buffer once.
            byte[] larger = ArrayPool<byte>.Shared.Rent(wanted);
            ArrayPool<byte>.Shared.Return(buffer);
            return larger;
        }

        /// <summary>The checks of <c>Stream.ValidateCopyToArguments</c>, which netstandard2.0 lacks.</summary>
        private static void ValidateCopyArguments(Stream destination, int bufferSize)
        {
            if (destination is null)
                throw new ArgumentNullException(nameof(destination));
            if (bufferSize <= 0)
                throw new ArgumentOutOfRangeException(nameof(bufferSize), bufferSize, "The buffer size must be positive.");
            if (!destination.CanWrite)
            {
                if (destination.CanRead)
                    throw new NotSupportedException("The destination stream cannot be written.");
                throw new ObjectDisposedException(nameof(destination), "The destination stream is closed.");
            }
        }

        /// <summary>The inner stream.</summary>
        public Stream BaseStream => _stream;

        /// <inheritdoc/>
        public override bool CanRead => !_disposed && _reader != null;

        /// <inheritdoc/>
        public override bool CanWrite => !_disposed && _writer != null;

        /// <inheritdoc/>
        public override bool CanSeek => false;

        /// <inheritdoc/>
        public override long Length => throw new NotSupportedException();

        /// <inheritdoc/>
        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        /// <inheritdoc/>
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        /// <inheritdoc/>
        public override void SetLength(long value) => throw new NotSupportedException();

        /// <inheritdoc/>
        public override int Read(byte[] buffer, int offset, int count)
        {
            CheckBufferArguments(buffer, offset, count);
            return Reader().Read(buffer.AsSpan(offset, count));
        }

#if NETCOREAPP2_1_OR_GREATER || NETSTANDARD2_1_OR_GREATER
        /// <inheritdoc/>
        public override int Read(Span<byte> buffer) => Reader().Read(buffer);

        /// <inheritdoc/>
        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken) =>
            Reader().ReadAsync(buffer, cancellationToken);
#endif

        /// <inheritdoc/>
        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            CheckBufferArguments(buffer, offset, count);
            return Reader().ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
        }

        /// <inheritdoc/>
        public override void Write(byte[] buffer, int offset, int count)
        {
            CheckBufferArguments(buffer, offset, count);
            Writer().Write(buffer.AsSpan(offset, count));
        }

#if NETCOREAPP2_1_OR_GREATER || NETSTANDARD2_1_OR_GREATER
        /// <inheritdoc/>
        public override void Write(ReadOnlySpan<byte> buffer) => Writer().Write(buffer);

        /// <inheritdoc/>
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken) =>
            Writer().WriteAsync(buffer, cancellationToken);
#endif

        /// <inheritdoc/>
        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            CheckBufferArguments(buffer, offset, count);
            return Writer().WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
        }

        /// <summary>In compress mode, ends the current block (as LZ4F's flush does) and flushes the inner stream.</summary>
        public override void Flush()
        {
            ThrowIfDisposed();
            _writer?.Flush();
        }

        /// <inheritdoc/>
        public override Task FlushAsync(CancellationToken cancellationToken)
        {
            ThrowIfDisposed();
            return _writer?.FlushAsync(cancellationToken) ?? Task.CompletedTask;
        }

        /// <inheritdoc/>
        protected override void Dispose(bool disposing)
        {
            try
            {
                if (disposing && !_disposed)
                {
                    _disposed = true;
                    try
                    {
                        _writer?.Finish();
                    }
                    finally
                    {
                        ReleaseCoder();
                        if (!_leaveOpen)
                            _stream.Dispose();
                    }
                }
            }
            finally
            {
                base.Dispose(disposing);
            }
        }

#if NETCOREAPP3_0_OR_GREATER
        /// <inheritdoc/>
        public override async ValueTask DisposeAsync()
        {
            if (!_disposed)
            {
                _disposed = true;
                try
                {
                    if (_writer != null)
                        await _writer.FinishAsync().ConfigureAwait(false);
                }
                finally
                {
                    ReleaseCoder();
                    if (!_leaveOpen)
                        await _stream.DisposeAsync().ConfigureAwait(false);
                }
            }
            await base.DisposeAsync().ConfigureAwait(false);
        }
#endif

        /// <summary>Returns the reader's or writer's pooled buffers; the stream can no longer read or write.</summary>
        private void ReleaseCoder()
        {
            _writer?.Dispose();
            _reader?.Dispose();
            _writer = null;
            _reader = null;
        }

        private Lz4FrameStreamReader Reader()
        {
            ThrowIfDisposed();
            return _reader ?? throw new NotSupportedException("This Lz4FrameStream compresses: it cannot be read.");
        }

        private Lz4FrameStreamWriter Writer()
        {
            ThrowIfDisposed();
            return _writer ?? throw new NotSupportedException("This Lz4FrameStream decompresses: it cannot be written.");
        }

        private void ThrowIfDisposed()
        {
            if (_disposed)
                throw new ObjectDisposedException(nameof(Lz4FrameStream));
        }

        private static void CheckBufferArguments(byte[] buffer, int offset, int count)
        {
            if (buffer is null) throw new ArgumentNullException(nameof(buffer));
            if (offset < 0) throw new ArgumentOutOfRangeException(nameof(offset));
            if ((uint)count > (uint)(buffer.Length - offset)) throw new ArgumentOutOfRangeException(nameof(count));
        }
    }
}
