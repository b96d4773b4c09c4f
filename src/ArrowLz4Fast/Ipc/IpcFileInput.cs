#if NET
using System;
using System.Buffers;
using System.Diagnostics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Win32.SafeHandles;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A file, read at positions on its handle (<see cref="RandomAccess"/>): no seeks, no copy through the file
    /// stream's buffer, and a read at an offset (a buffer's head, the footer) leaves where the input stands alone.
    /// The file stream's own position is set to where this input stands when it is released, so a stream left open
    /// continues from there.
    /// </summary>
    internal sealed class IpcFileInput : IpcInput
    {
        // Reads shorter than this (length prefixes, metadata, small bodies) are served from one positional read of
        // BufferSize bytes: a stream of small messages would otherwise cost a system call or two per message.
        private const int BufferSize = 16384;
        private const int SmallRead = BufferSize / 2;

        private readonly FileStream _file;
        private readonly SafeFileHandle _handle;
        private long _offset;

        // The file's bytes [_bufferStart, _bufferStart + _bufferLength), rented at the first small read.
        private byte[] _buffer = Array.Empty<byte>();
        private long _bufferStart;
        private int _bufferLength;

        public IpcFileInput(FileStream file)
            : base(file)
        {
            Debug.Assert(file.CanSeek, "Positional reads need a seekable file.");
            _file = file;
            // The stream's position counts what its buffer holds; reads start there.
            _offset = file.Position;
            _handle = file.SafeFileHandle;
        }

        /// <inheritdoc/>
        public override bool Seekable => true;

        /// <inheritdoc/>
        public override bool CanReadAhead => true;

        /// <inheritdoc/>
        public override bool ReadsAtPositions => true;

        /// <inheritdoc/>
        public override long Offset
        {
            get => _offset;
            set
            {
                Debug.Assert(value >= 0, "A file offset is not negative.");
                _offset = value;
            }
        }

        /// <inheritdoc/>
        public override IpcDeferredBody CreateDeferredBody() => new IpcPositionalBody(this);

        /// <inheritdoc/>
        public override long Length => RandomAccess.GetLength(_handle);

        /// <inheritdoc/>
        public override int ReadAt(long offset, byte[] buffer, int at, int count)
        {
            int got = 0;
            int n;
            while (got < count && (n = RandomAccess.Read(_handle, buffer.AsSpan(at + got, count - got), offset + got)) > 0)
                got += n;
            return got;
        }

        /// <inheritdoc/>
        public override void Release(bool leaveOpen)
        {
            if (leaveOpen && !_handle.IsClosed)
                _file.Position = _offset;
            if (_buffer.Length > 0)
                ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = Array.Empty<byte>();
            _bufferLength = 0;
            base.Release(leaveOpen);
        }

        /// <inheritdoc/>
        protected override int ReadRaw(byte[] buffer, int offset, int count) => ReadRaw(buffer.AsSpan(offset, count));

        /// <inheritdoc/>
        protected override int ReadRaw(Span<byte> destination)
        {
            int n = FromBuffer(destination);
            if (n == 0 && destination.Length > 0)
            {
                if (destination.Length < SmallRead)
                {
                    Fill(RandomAccess.Read(_handle, Rented().Span, _offset));
                    n = FromBuffer(destination);
                }
                else
                {
                    n = RandomAccess.Read(_handle, destination, _offset);
                }
            }
            _offset += n;
            return n;
        }

        /// <inheritdoc/>
        protected override async ValueTask<int> ReadRawAsync(Memory<byte> destination, CancellationToken cancellationToken)
        {
            int n = FromBuffer(destination.Span);
            if (n == 0 && destination.Length > 0)
            {
                if (destination.Length < SmallRead)
                {
                    Fill(await RandomAccess.ReadAsync(_handle, Rented(), _offset, cancellationToken).ConfigureAwait(false));
                    n = FromBuffer(destination.Span);
                }
                else
                {
                    n = await RandomAccess.ReadAsync(_handle, destination, _offset, cancellationToken).ConfigureAwait(false);
                }
            }
            _offset += n;
            return n;
        }

        // Copies what the buffer holds at the input's offset; 0 when it holds nothing there. Does not move the offset.
        private int FromBuffer(Span<byte> destination)
        {
            long at = _offset - _bufferStart;
            if (at < 0 || at >= _bufferLength)
                return 0;
            int n = Math.Min(destination.Length, _bufferLength - (int)at);
            _buffer.AsSpan((int)at, n).CopyTo(destination);
            return n;
        }

        private Memory<byte> Rented()
        {
            if (_buffer.Length == 0)
                _buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
            _bufferLength = 0;
            return _buffer.AsMemory(0, BufferSize);
        }

        private void Fill(int read)
        {
            _bufferStart = _offset;
            _bufferLength = read;
            Debug.Assert(read >= 0 && read <= BufferSize, "a read fills at most the buffer");
        }
    }
}
#endif
