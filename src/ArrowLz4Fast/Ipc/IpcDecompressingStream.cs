using System;
using System.Buffers;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>
    /// A read-only stream that presents an Arrow IPC stream (or the batches of an IPC file, in order) whose record and
    /// dictionary batches are LZ4_FRAME-compressed as the same stream uncompressed: each such message's metadata is
    /// rewritten for the decompressed body, and when the reader reads that body, every buffer of it is decoded straight
    /// into the reader's memory, on up to <see cref="Lz4FastOptions.MaxDegreeOfParallelism"/> threads.
    /// </summary>
    /// <remarks>
    /// <code>
    /// using var reader = new ArrowStreamReader(new IpcDecompressingStream(input), SlabMemoryAllocator.Shared);
    /// </code>
    /// Schema messages, uncompressed messages and ZSTD-compressed messages pass through unchanged, so a reader given a
    /// codec factory (for example <c>new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory())</c>)
    /// still decodes ZSTD. An IPC file (it starts with <c>ARROW1</c>) is read as the stream it embeds: every batch in
    /// order; for random access to a file, batch <i>i</i> from its footer, see <see cref="Lz4ArrowFileReader"/>.
    /// <see cref="Lz4FastOptions.Projection"/> presents only the selected top-level fields: the others' buffers are
    /// neither decompressed nor, from a seekable input, read (<see cref="IpcProjection"/>).
    /// Malformed input is an <see cref="InvalidDataException"/> whose inner <see cref="Frames.Lz4FrameException"/> has the
    /// byte offset of the defect in the input stream; a frame compressed against a dictionary is a
    /// <see cref="NotSupportedException"/>. An instance is not safe for concurrent use.
    /// </remarks>
    public sealed partial class IpcDecompressingStream : Stream
    {
        /// <summary>The default limit on a message's decompressed body: the longest .NET array, as Arrow .NET's buffers are indexed by <see cref="int"/>.</summary>
        public const long DefaultMaxBodyLength = 0x7FFFFFC7;

        private const int Continuation = -1;
        private const int HeaderSlack = 65536 + 32;
        private const int InitialChunk = 1 << 16;

        // Read only: a stream made without options takes its settings from it.
        private static readonly Lz4FastOptions s_defaults = new Lz4FastOptions();

        private readonly IpcInput _input;
        private readonly bool _leaveOpen;
        private readonly long _maxBodyLength;
        private readonly bool _drainAtEnd;
        private readonly IpcBodyDecoder _decoder;
        private readonly WholeWriteHandoff _handoff = new WholeWriteHandoff();
        private readonly IpcBodySource _wholeBody;
        private readonly IpcStreamSpares _spares;

        private State _state;
        private State _afterHeader;
        private long _fileEnd = -1;

        private byte[] _header;
        private int _headerLength;
        private int _headerRead;

        private byte[] _body;
        private ReadOnlyMemory<byte> _bodySource;
        private IpcBodySource _source;
        private IpcDeferredBody? _deferred;
        private long _bodyOffset;
        private IpcBufferItem[] _items;
        private int _itemCount;
        private int _outputLength;
        private int _outputRead;
        private byte[]? _window;
        private bool _windowReady;
        private long _passRemaining;
        private bool _disposed;

        private enum State
        {
            Start,
            NextMessage,
            Header,
            Body,
            PassBody,
            Gathered,
            End,
        }

        /// <summary>Wraps an LZ4_FRAME body-compressed Arrow IPC stream or file.</summary>
        /// <param name="input">The compressed IPC stream (or file), read forward only.</param>
        /// <param name="options">Checksum and parallelism settings (<see cref="Lz4FastOptions.VerifyChecksums"/>, <see cref="Lz4FastOptions.MaxDegreeOfParallelism"/>, <see cref="Lz4FastOptions.MinimumParallelLength"/>); <see langword="null"/> for the defaults.</param>
        /// <param name="leaveOpen"><see langword="true"/> to leave <paramref name="input"/> open when this stream is disposed.</param>
        /// <param name="maxBodyLength">The longest decompressed body a message may declare; a longer one is refused before anything is allocated for it.</param>
        /// <exception cref="ArgumentNullException"><paramref name="input"/> is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentException"><paramref name="input"/> cannot be read.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxBodyLength"/> is negative or more than <see cref="DefaultMaxBodyLength"/>.</exception>
        public IpcDecompressingStream(Stream input, Lz4FastOptions? options = null, bool leaveOpen = false, long maxBodyLength = DefaultMaxBodyLength)
            : this(input, options, leaveOpen, maxBodyLength, drainAtEnd: false)
        {
        }

        /// <summary>
        /// Wraps an LZ4_FRAME body-compressed Arrow IPC stream or file held in memory (a file's bytes, a memory-mapped
        /// region, a network buffer): each compressed body is decoded from where it lies, without a copy.
        /// </summary>
        /// <param name="input">The compressed IPC stream (or file). It must not change while this stream is read: bodies are decoded from it when the reader reads them.</param>
        public IpcDecompressingStream(ReadOnlyMemory<byte> input)
            : this(input, null, DefaultMaxBodyLength)
        {
        }

        /// <summary>Wraps an LZ4_FRAME body-compressed Arrow IPC stream or file held in memory, with settings.</summary>
        /// <param name="input">The compressed IPC stream (or file); it must not change while this stream is read.</param>
        /// <param name="options">Checksum and parallelism settings, as for the <see cref="Stream"/> constructor; <see langword="null"/> for the defaults.</param>
        public IpcDecompressingStream(ReadOnlyMemory<byte> input, Lz4FastOptions? options)
            : this(input, options, DefaultMaxBodyLength)
        {
        }

        /// <summary>Wraps an LZ4_FRAME body-compressed Arrow IPC stream or file held in memory, with settings and a body limit.</summary>
        /// <param name="input">The compressed IPC stream (or file); it must not change while this stream is read.</param>
        /// <param name="options">Checksum and parallelism settings; <see langword="null"/> for the defaults.</param>
        /// <param name="maxBodyLength">The longest decompressed body a message may declare.</param>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxBodyLength"/> is negative or more than <see cref="DefaultMaxBodyLength"/>.</exception>
        public IpcDecompressingStream(ReadOnlyMemory<byte> input, Lz4FastOptions? options, long maxBodyLength)
            : this(new ReadOnlyMemoryStream(input), options, leaveOpen: false, maxBodyLength, drainAtEnd: false)
        {
        }

        /// <param name="input">The compressed IPC stream.</param>
        /// <param name="options">Checksum and parallelism settings.</param>
        /// <param name="leaveOpen">Leave <paramref name="input"/> open when disposed.</param>
        /// <param name="maxBodyLength">The longest decompressed body a message may declare.</param>
        /// <param name="drainAtEnd">
        /// Read <paramref name="input"/> to its end at the end-of-stream marker, before serving it: an input that checks
        /// itself at its end (an LZ4 frame's content checksum) then does so, although Arrow stops reading at the marker.
        /// </param>
        internal IpcDecompressingStream(Stream input, Lz4FastOptions? options, bool leaveOpen, long maxBodyLength, bool drainAtEnd)
        {
            if (input is null) throw new ArgumentNullException(nameof(input));
            if (!input.CanRead) throw new ArgumentException("The input stream cannot be read.", nameof(input));
            if (maxBodyLength < 0 || maxBodyLength > DefaultMaxBodyLength)
                throw new ArgumentOutOfRangeException(nameof(maxBodyLength), maxBodyLength, $"The limit must be 0 to {DefaultMaxBodyLength}.");
            _input = IpcInput.Create(input);
            _leaveOpen = leaveOpen;
            _maxBodyLength = maxBodyLength;
            _drainAtEnd = drainAtEnd;
            // Parts the last stream disposed on this thread left, or new ones.
            _spares = IpcStreamSpares.Take(out _items, out _schema);
            _layouts = _spares.Layouts;
            _wholeBody = _spares.WholeBody;
            _decoder = options is null ? _spares.DefaultDecoder ??= new IpcBodyDecoder(s_defaults) : new IpcBodyDecoder(options);
            _verifyOffsets = options?.VerifyOffsets ?? false;
            _projection = options?.Projection;
            _canReadAhead = _decoder.Degree > 1 && _input.CanReadAhead;
            _source = _wholeBody;
            _header = ArrayPool<byte>.Shared.Rent(256 + HeaderSlack);
            _body = ArrayPool<byte>.Shared.Rent(InitialChunk);
        }

        /// <summary>The compressed stream this stream reads (for the <see cref="ReadOnlyMemory{T}"/> constructor, a read-only stream over that memory).</summary>
        public Stream BaseStream => _input.Stream;

        /// <inheritdoc/>
        public override bool CanRead => !_disposed;

        /// <inheritdoc/>
        public override bool CanSeek => false;

        /// <inheritdoc/>
        public override bool CanWrite => false;

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override long Length => throw new NotSupportedException();

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        /// <summary>Does nothing: the stream is read-only.</summary>
        public override void Flush()
        {
        }

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override void SetLength(long value) => throw new NotSupportedException();

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        /// <summary>Reads decompressed IPC bytes.</summary>
        /// <param name="buffer">The destination.</param>
        /// <param name="offset">Where to start writing in <paramref name="buffer"/>.</param>
        /// <param name="count">The most bytes to read.</param>
        /// <returns>The number of bytes read; 0 at the end of the IPC stream.</returns>
        /// <exception cref="InvalidDataException">The input is malformed; the inner <see cref="Frames.Lz4FrameException"/> has the offset.</exception>
        /// <exception cref="NotSupportedException">A frame was compressed against a dictionary.</exception>
        public override int Read(byte[] buffer, int offset, int count)
        {
            ValidateBuffer(buffer, offset, count);
            return ReadCore(new Span<byte>(buffer, offset, count));
        }

        /// <summary>Reads decompressed IPC bytes asynchronously.</summary>
        /// <param name="buffer">The destination.</param>
        /// <param name="offset">Where to start writing in <paramref name="buffer"/>.</param>
        /// <param name="count">The most bytes to read.</param>
        /// <param name="cancellationToken">Cancels the read.</param>
        /// <returns>The number of bytes read; 0 at the end of the IPC stream.</returns>
        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            ValidateBuffer(buffer, offset, count);
            return ReadAsyncCore(new Memory<byte>(buffer, offset, count), cancellationToken).AsTask();
        }

        /// <inheritdoc/>
        protected override void Dispose(bool disposing)
        {
            if (!_disposed)
            {
                _disposed = true;
                _state = State.End;
                _handoff.Release();
                if (disposing)
                {
                    ReturnArrays();
                    _input.Release(_leaveOpen);
                }
            }
            base.Dispose(disposing);
        }

        private void ReturnArrays()
        {
            ArrayPool<byte>.Shared.Return(_header);
            ArrayPool<byte>.Shared.Return(_body);
            _header = Array.Empty<byte>();
            _body = Array.Empty<byte>();
            _bodySource = default;
            _source = _wholeBody;
            _wholeBody.Clear();
            _deferred?.Clear();
            if (_window is not null)
            {
                ArrayPool<byte>.Shared.Return(_window);
                _window = null;
            }
            ReturnProjectionArrays();
            if (_spare is not null)
            {
                ArrayPool<byte>.Shared.Return(_spare);
                _spare = null;
            }
            if (_decoder != _spares.DefaultDecoder)
                _decoder.Release();
            // The next stream made on this thread takes the items, the schema's array and the rest over.
            IpcBufferItem[] items = _items;
            byte[] schema = _schema;
            _items = Array.Empty<IpcBufferItem>();
            _schema = Array.Empty<byte>();
            _schemaLength = 0;
            _spares.Leave(items, schema);
        }

        private static void ValidateBuffer(byte[] buffer, int offset, int count)
        {
            if (buffer is null) throw new ArgumentNullException(nameof(buffer));
            if (offset < 0 || offset > buffer.Length) throw new ArgumentOutOfRangeException(nameof(offset));
            if (count < 0 || count > buffer.Length - offset) throw new ArgumentOutOfRangeException(nameof(count));
        }

        private void ThrowIfDisposed()
        {
            if (_disposed)
                throw new ObjectDisposedException(nameof(IpcDecompressingStream));
        }

        private int ReadCore(Span<byte> destination)
        {
            try
            {
                return ReadCoreUnnamed(destination);
            }
            catch (Exception e) when (Named(e) is { } named)
            {
                throw named;
            }
        }

        private async ValueTask<int> ReadAsyncCore(Memory<byte> destination, CancellationToken cancellationToken)
        {
            try
            {
                return await ReadAsyncCoreUnnamed(destination, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (Named(e) is { } named)
            {
                throw named;
            }
        }

        private int ReadCoreUnnamed(Span<byte> destination)
        {
            ThrowIfDisposed();
            if (destination.IsEmpty)
                return 0;
            // True when destination is the body buffer Arrow allocated after the metadata we served, unzeroed.
            bool zeroingOwed = _handoff.Settle(destination);
            while (true)
            {
                switch (_state)
                {
                    case State.Start:
                    case State.NextMessage:
                        NextMessageSync();
                        break;
                    case State.Header:
                        int served = ServeHeader(destination);
                        // Arrow allocates the body next and reaches its span before Read; announce so it is not zeroed.
                        if (_state == State.Body && _headerRead == _headerLength)
                            _handoff.Announce(_outputLength);
                        return served;
                    case State.Body:
                        return ServeBody(destination, zeroingOwed, WorthReadingAhead() ? _readAhead ??= ReadAhead : null);
                    case State.PassBody:
                        int n = _input.Read(destination.Slice(0, (int)Math.Min(destination.Length, _passRemaining)), _body);
                        return Passed(n);
                    case State.Gathered:
                        return ServeGathered(destination);
                    default:
                        return 0;
                }
            }
        }

        private async ValueTask<int> ReadAsyncCoreUnnamed(Memory<byte> destination, CancellationToken cancellationToken)
        {
            ThrowIfDisposed();
            _handoff.Release();
            cancellationToken.ThrowIfCancellationRequested();
            if (destination.IsEmpty)
                return 0;
            while (true)
            {
                switch (_state)
                {
                    case State.Start:
                    case State.NextMessage:
                        await NextMessageAsync(cancellationToken).ConfigureAwait(false);
                        break;
                    case State.Header:
                        return ServeHeader(destination.Span);
                    case State.Body:
                        if (!_source.AllThere)
                            await _deferred!.BringAllAsync(cancellationToken).ConfigureAwait(false);
                        // Arrow's async read passes the body buffer's Memory before reaching its span.
                        bool zeroingOwed = IsWholeBodyRead(destination.Length)
                            && SlabMemoryOwner.TrySkipClear(destination.Slice(0, _outputLength), out _);
                        // No read-ahead: it reads the input synchronously.
                        return ServeBody(destination.Span, zeroingOwed, alongside: null);
                    case State.PassBody:
                        int n = await _input.ReadAsync(destination.Slice(0, (int)Math.Min(destination.Length, _passRemaining)), _body, cancellationToken).ConfigureAwait(false);
                        return Passed(n);
                    case State.Gathered:
                        return ServeGathered(destination.Span);
                    default:
                        return 0;
                }
            }
        }

        private int Passed(int read)
        {
            if (read <= 0)
                IpcErrors.ThrowTruncated(_input.Position, "a message body", _passRemaining, 0);
            _passRemaining -= read;
            if (_passRemaining == 0)
                _state = State.NextMessage;
            return read;
        }

        private int ServeHeader(Span<byte> destination)
        {
            int n = Math.Min(destination.Length, _headerLength - _headerRead);
            _header.AsSpan(_headerRead, n).CopyTo(destination);
            _headerRead += n;
            if (_headerRead == _headerLength)
                _state = _afterHeader;
            return n;
        }

        private bool IsWholeBodyRead(int length) => _outputRead == 0 && !_windowReady && length >= _outputLength;

        /// <param name="destination">Where to serve body bytes.</param>
        /// <param name="zeroingOwed">The destination is an unzeroed allocator buffer: every byte must be written, or it zeroed.</param>
        /// <param name="alongside">Work for the calling thread while helpers decode the body (the read-ahead), or null.</param>
        private int ServeBody(Span<byte> destination, bool zeroingOwed, Action? alongside)
        {
            // The zero-copy path: the reader asks for the whole body at once, into the memory the batch will own.
            if (IsWholeBodyRead(destination.Length))
            {
                try
                {
                    _decoder.Decode(_source, destination.Slice(0, _outputLength), alongside);
                }
                catch when (zeroingOwed)
                {
                    destination.Clear();
                    throw;
                }
                Decoded(destination.Slice(0, _outputLength));
                _state = State.NextMessage;
                return _outputLength;
            }
            if (zeroingOwed)
                destination.Clear();
            if (!_windowReady)
            {
                if (_window is null || _window.Length < _outputLength)
                {
                    if (_window is not null)
                        ArrayPool<byte>.Shared.Return(_window);
                    _window = null;
                    _window = ArrayPool<byte>.Shared.Rent(_outputLength);
                }
                _decoder.Decode(_source, _window.AsSpan(0, _outputLength));
                Decoded(_window.AsSpan(0, _outputLength));
                _windowReady = true;
            }
            int n = Math.Min(destination.Length, _outputLength - _outputRead);
            _window!.AsSpan(_outputRead, n).CopyTo(destination);
            _outputRead += n;
            if (_outputRead == _outputLength)
                _state = State.NextMessage;
            return n;
        }
    }
}
