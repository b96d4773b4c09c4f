using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
#if NET
using Microsoft.Win32.SafeHandles;
#endif

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The bytes of an IPC file read at positions, for <see cref="Lz4ArrowFileReader"/>: memory (a slice, no I/O), a
    /// file's handle (<c>RandomAccess</c> on .NET 8, so no seek and no stream buffer), or any seekable stream (a seek
    /// and a read under a lock). Chosen once, when the reader is opened.
    /// </summary>
    internal abstract class IpcFileSource : IDisposable
    {
        /// <summary>The file's length, taken once at open: a file that grows later is read as it was.</summary>
        public abstract long Length { get; }

        public static IpcFileSource Over(ReadOnlyMemory<byte> bytes) => new MemorySource(bytes);

        public static IpcFileSource Open(string path)
        {
#if NET
            return new HandleSource(File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read, FileOptions.RandomAccess), owner: null, ownsHandle: true);
#else
            return new StreamSource(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.RandomAccess), leaveOpen: false);
#endif
        }

        public static IpcFileSource Over(Stream stream, bool leaveOpen)
        {
#if NET
            // Exactly a FileStream: a derived one may read otherwise than its handle says.
            if (stream.GetType() == typeof(FileStream))
                return new HandleSource(((FileStream)stream).SafeFileHandle, leaveOpen ? null : stream, ownsHandle: false);
#endif
            return new StreamSource(stream, leaveOpen);
        }

        /// <summary>Reads up to <paramref name="destination"/>'s length at <paramref name="offset"/>; fewer only when the file ends first.</summary>
        public abstract int ReadAt(long offset, Span<byte> destination);

        /// <inheritdoc cref="ReadAt"/>
        public abstract ValueTask<int> ReadAtAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken);

        public abstract void Dispose();

        private sealed class MemorySource : IpcFileSource
        {
            private readonly ReadOnlyMemory<byte> _bytes;

            public MemorySource(ReadOnlyMemory<byte> bytes) => _bytes = bytes;

            public override long Length => _bytes.Length;

            public override int ReadAt(long offset, Span<byte> destination)
            {
                if (offset >= _bytes.Length)
                    return 0;
                int n = (int)Math.Min(destination.Length, _bytes.Length - offset);
                _bytes.Span.Slice((int)offset, n).CopyTo(destination);
                return n;
            }

            public override ValueTask<int> ReadAtAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken) =>
                new(ReadAt(offset, destination.Span));

            public override void Dispose()
            {
            }
        }

#if NET
        private sealed class HandleSource : IpcFileSource
        {
            private readonly SafeFileHandle _handle;
            private readonly Stream? _owner;
            private readonly bool _ownsHandle;
            private readonly long _length;

            /// <param name="handle">The file's handle.</param>
            /// <param name="owner">The stream to dispose with the source, or null.</param>
            /// <param name="ownsHandle">Close the handle with the source (one the source opened).</param>
            public HandleSource(SafeFileHandle handle, Stream? owner, bool ownsHandle)
            {
                _handle = handle;
                _owner = owner;
                _ownsHandle = ownsHandle;
                _length = RandomAccess.GetLength(handle);
            }

            public override long Length => _length;

            public override int ReadAt(long offset, Span<byte> destination)
            {
                int got = 0;
                int n;
                while (got < destination.Length && (n = RandomAccess.Read(_handle, destination.Slice(got), offset + got)) > 0)
                    got += n;
                return got;
            }

            public override async ValueTask<int> ReadAtAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken)
            {
                int got = 0;
                int n;
                while (got < destination.Length && (n = await RandomAccess.ReadAsync(_handle, destination.Slice(got), offset + got, cancellationToken).ConfigureAwait(false)) > 0)
                    got += n;
                return got;
            }

            public override void Dispose()
            {
                _owner?.Dispose();
                if (_ownsHandle)
                    _handle.Dispose();
            }
        }
#endif

        private sealed class StreamSource : IpcFileSource
        {
            private readonly Stream _stream;
            private readonly bool _leaveOpen;
            private readonly long _length;
            private readonly object _gate = new object();

            public StreamSource(Stream stream, bool leaveOpen)
            {
                if (!stream.CanRead || !stream.CanSeek)
                    throw new ArgumentException("The IPC file's stream must be readable and seekable; read a stream that is not with IpcDecompressingStream.", nameof(stream));
                _stream = stream;
                _leaveOpen = leaveOpen;
                _length = stream.Length;
            }

            public override long Length => _length;

            public override int ReadAt(long offset, Span<byte> destination)
            {
                lock (_gate)
                {
                    _stream.Position = offset;
                    int got = 0;
                    int n;
#if NET
                    while (got < destination.Length && (n = _stream.Read(destination.Slice(got))) > 0)
                        got += n;
#else
                    byte[] scratch = System.Buffers.ArrayPool<byte>.Shared.Rent(Math.Min(destination.Length, 1 << 20));
                    try
                    {
                        while (got < destination.Length && (n = _stream.Read(scratch, 0, Math.Min(scratch.Length, destination.Length - got))) > 0)
                        {
                            scratch.AsSpan(0, n).CopyTo(destination.Slice(got));
                            got += n;
                        }
                    }
                    finally
                    {
                        System.Buffers.ArrayPool<byte>.Shared.Return(scratch);
                    }
#endif
                    return got;
                }
            }

            public override ValueTask<int> ReadAtAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken)
            {
                // A seek and its read must stay together under the lock, which is not held across an await: read synchronously.
                cancellationToken.ThrowIfCancellationRequested();
                return new(ReadAt(offset, destination.Span));
            }

            public override void Dispose()
            {
                if (!_leaveOpen)
                    _stream.Dispose();
            }
        }
    }
}
