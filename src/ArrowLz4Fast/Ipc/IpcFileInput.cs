#if NET
using System;
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
        private readonly FileStream _file;
        private readonly SafeFileHandle _handle;
        private long _offset;

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
            base.Release(leaveOpen);
        }

        /// <inheritdoc/>
        protected override int ReadRaw(byte[] buffer, int offset, int count) => ReadRaw(buffer.AsSpan(offset, count));

        /// <inheritdoc/>
        protected override int ReadRaw(Span<byte> destination)
        {
            int n = RandomAccess.Read(_handle, destination, _offset);
            _offset += n;
            return n;
        }

        /// <inheritdoc/>
        protected override async ValueTask<int> ReadRawAsync(Memory<byte> destination, CancellationToken cancellationToken)
        {
            int n = await RandomAccess.ReadAsync(_handle, destination, _offset, cancellationToken).ConfigureAwait(false);
            _offset += n;
            return n;
        }
    }
}
#endif
