using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Where <see cref="IpcDecompressingStream"/> reads its bytes from, chosen once at construction by
    /// <see cref="Create"/>: a plain stream (this type: read forward, with seeks when it can), memory whose bodies are
    /// lent without a copy (<see cref="IpcMemoryInput"/>), or a file read at positions on its handle
    /// (<c>IpcFileInput</c>, on .NET 8). Every kind keeps the lookahead (bytes taken from the input ahead of the message
    /// loop: the file magic, or a message read ahead) and the count of the IPC stream's bytes consumed, which error
    /// offsets are measured in.
    /// </summary>
    internal class IpcInput
    {
        private static readonly byte[] s_fileMagic = { (byte)'A', (byte)'R', (byte)'R', (byte)'O', (byte)'W', (byte)'1' };

        private readonly Stream _stream;
        private byte[] _lookahead = ArrayPool<byte>.Shared.Rent(16);
        private int _start;
        private int _end;
        private long _position;

        protected IpcInput(Stream stream) => _stream = stream;

        /// <summary>The kind of input <paramref name="stream"/> is, decided once.</summary>
        public static IpcInput Create(Stream stream)
        {
            if (stream is ReadOnlyMemoryStream || IpcMemoryInput.Exposes(stream))
                return new IpcMemoryInput(stream);
#if NET
            // Exactly a FileStream: a derived one may read otherwise than its handle says.
            if (stream.GetType() == typeof(FileStream) && stream.CanSeek)
                return new IpcFileInput((FileStream)stream);
#endif
            return new IpcInput(stream);
        }

        /// <summary>The stream this input reads.</summary>
        public Stream Stream => _stream;

        /// <summary>The bytes of the IPC stream consumed so far, counting from its start (the file magic included).</summary>
        public long Position => _position;

        /// <summary>
        /// Whether the message metadata read at [<paramref name="position"/>, +<paramref name="length"/>) was verified
        /// whole by whoever gave the input those bytes (a file reader's spliced stream): then
        /// <paramref name="message"/> is what verifying them found, and they need not be walked again.
        /// </summary>
        public bool TryVerified(long position, int length, out IpcMessage message)
        {
            if (_stream is IpcSpliceStream splice)
                return splice.TryVerified(position, length, out message);
            message = default;
            return false;
        }

        /// <summary>Whether bytes taken ahead are still to be consumed: they come before the input's own.</summary>
        public bool HasLookahead => _start < _end;

        /// <summary>Whether the input can say where it stands and how long it is, and move.</summary>
        public virtual bool Seekable => _stream.CanSeek;

        /// <summary>Whether reading the next message ahead can pay: an input whose bytes are there, and not in memory already.</summary>
        public virtual bool CanReadAhead => _stream.CanSeek;

        /// <summary>Where the input stands (only when <see cref="Seekable"/>).</summary>
        public virtual long Offset
        {
            get => _stream.Position;
            set => _stream.Position = value;
        }

        /// <summary>Whether <see cref="ReadAt"/> reads at a position without moving the input, so several threads may call it at once.</summary>
        public virtual bool ReadsAtPositions => false;

        /// <summary>How a body of this input is brought while it decodes, once its metadata was served: made once per stream, reused for every such body.</summary>
        public virtual IpcDeferredBody CreateDeferredBody() => new IpcArrivingBody(this);

        /// <summary>The input's length (only when <see cref="Seekable"/>): a system call for a file.</summary>
        public virtual long Length => _stream.Length;

        /// <summary>The input left past where it stands (only when <see cref="Seekable"/>).</summary>
        public long Left => Length - Offset;

        /// <summary>Takes up to <paramref name="count"/> (at most 16) bytes ahead, uncounted, as the lookahead.</summary>
        public int Peek(int count)
        {
            Debug.Assert(!HasLookahead && count <= 16, "The lookahead is taken once, at the start.");
            _start = 0;
            _end = ReadUpTo(_lookahead, 0, count);
            return _end;
        }

        /// <inheritdoc cref="Peek"/>
        public async ValueTask<int> PeekAsync(int count, CancellationToken cancellationToken)
        {
            Debug.Assert(!HasLookahead && count <= 16, "The lookahead is taken once, at the start.");
            int read = 0;
            int n;
            while (read < count && (n = await ReadRawAsync(_lookahead.AsMemory(read, count - read), cancellationToken).ConfigureAwait(false)) > 0)
                read += n;
            _start = 0;
            _end = read;
            return read;
        }

        /// <summary>Whether the lookahead starts with the IPC file magic; if so, its 8-byte header is consumed.</summary>
        public bool SkipFileMagic()
        {
            if (_end < s_fileMagic.Length || !_lookahead.AsSpan(0, s_fileMagic.Length).SequenceEqual(s_fileMagic))
                return false;
            if (_end < 8)
                IpcErrors.ThrowTruncated(0, "the 8-byte IPC file header", 8, _end);
            _start = 8;
            _position = 8;
            return true;
        }

        /// <summary>
        /// Where the embedded stream of an IPC file begun at <paramref name="origin"/> ends (its footer begins), or -1
        /// when the input cannot say. Trailer: int32 footer length, then "ARROW1".
        /// </summary>
        public long FindFooter(long origin)
        {
            if (!Seekable)
                return -1;
            long length = Length;
            if (length - origin < 8 + 10)
                return -1;
            byte[] trailer = new byte[10];
            if (ReadAt(length - 10, trailer, 0, 10) == 10 && trailer.AsSpan(4).SequenceEqual(s_fileMagic))
            {
                long footer = BinaryPrimitives.ReadInt32LittleEndian(trailer);
                long end = length - origin - 10 - footer;
                if (footer >= 0 && end >= 8)
                    return end;
            }
            return -1;
        }

        /// <summary>
        /// Reads <paramref name="count"/> bytes at <paramref name="offset"/> of the input, uncounted, without moving
        /// where the input stands, and returns how many came (fewer when the input ends first). Only when <see cref="Seekable"/>.
        /// </summary>
        public virtual int ReadAt(long offset, byte[] buffer, int at, int count)
        {
            long here = _stream.Position;
            try
            {
                _stream.Position = offset;
                return ReadUpTo(buffer, at, count);
            }
            finally
            {
                _stream.Position = here;
            }
        }

        /// <summary>Reads the input into an array until <paramref name="count"/> bytes are there or it ends; uncounted (a read-ahead is counted as it is consumed).</summary>
        public int ReadUpTo(byte[] buffer, int offset, int count)
        {
            int got = 0;
            int n;
            while (got < count && (n = ReadRaw(buffer, offset + got, count - got)) > 0)
                got += n;
            return got;
        }

        /// <summary>Consumes <paramref name="length"/> bytes without reading them (a body read at positions instead). Only when <see cref="Seekable"/>.</summary>
        public void Skip(int length)
        {
            Debug.Assert(Seekable && !HasLookahead && length >= 0, "Only a seekable input with nothing taken ahead skips.");
            Offset += length;
            _position += length;
        }

        /// <summary>
        /// The next <paramref name="length"/> bytes, consumed without a copy when they are in memory already (taken
        /// ahead, or an input in memory); false, and nothing consumed, otherwise.
        /// </summary>
        public bool TryBorrow(int length, out ReadOnlyMemory<byte> bytes)
        {
            if (HasLookahead)
            {
                bytes = default;
                if (_end - _start < length)
                    return false;
                bytes = new ReadOnlyMemory<byte>(_lookahead, _start, length);
                _start += length;
            }
            else if (!TryTake(length, out bytes))
            {
                return false;
            }
            _position += length;
            return true;
        }

        /// <summary>Consumes bytes into one of the stream's own arrays, the lookahead first.</summary>
        public int Read(byte[] buffer, int offset, int count)
        {
            if (HasLookahead)
                return FromLookahead(buffer.AsSpan(offset, count));
            return Counted(ReadRaw(buffer, offset, count));
        }

        /// <summary>Consumes bytes into the caller's span (a message passing through); <paramref name="scratch"/> is an idle array for targets whose streams read arrays only.</summary>
        public int Read(Span<byte> destination, byte[] scratch)
        {
            if (HasLookahead)
                return FromLookahead(destination);
#if NET
            _ = scratch;
            return Counted(ReadRaw(destination));
#else
            int n = ReadRaw(scratch, 0, Math.Min(destination.Length, scratch.Length));
            scratch.AsSpan(0, Math.Max(n, 0)).CopyTo(destination);
            return Counted(n);
#endif
        }

        /// <inheritdoc cref="Read(Span{byte}, byte[])"/>
        public async ValueTask<int> ReadAsync(Memory<byte> destination, byte[] scratch, CancellationToken cancellationToken)
        {
            if (HasLookahead)
                return FromLookahead(destination.Span);
#if NET
            _ = scratch;
            int n = await ReadRawAsync(destination, cancellationToken).ConfigureAwait(false);
#else
            int n;
            if (MemoryMarshal.TryGetArray(destination, out ArraySegment<byte> _))
            {
                n = await ReadRawAsync(destination, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                n = await ReadRawAsync(scratch.AsMemory(0, Math.Min(destination.Length, scratch.Length)), cancellationToken).ConfigureAwait(false);
                scratch.AsSpan(0, Math.Max(n, 0)).CopyTo(destination.Span);
            }
#endif
            return Counted(n);
        }

        /// <summary>Reads the input to its end (past the end-of-stream marker), into an idle array.</summary>
        public void Drain(byte[] scratch)
        {
            while (ReadRaw(scratch, 0, scratch.Length) > 0)
            {
            }
        }

        /// <inheritdoc cref="Drain"/>
        public async ValueTask DrainAsync(byte[] scratch, CancellationToken cancellationToken)
        {
            while (await ReadRawAsync(scratch, cancellationToken).ConfigureAwait(false) > 0)
            {
            }
        }

        /// <summary>
        /// Makes <paramref name="ahead"/>[0..<paramref name="got"/>) the lookahead: the input's next bytes, read ahead
        /// with <see cref="ReadUpTo"/>. Returns the array it replaces, which may still hold the body being decoded.
        /// </summary>
        public byte[] ReplaceLookahead(byte[] ahead, int got)
        {
            Debug.Assert(!HasLookahead && got <= ahead.Length, "Only an input whose lookahead is consumed reads ahead.");
            byte[] old = _lookahead;
            _lookahead = ahead;
            _start = 0;
            _end = got;
            return old;
        }

        /// <summary>Returns the pooled lookahead and, unless <paramref name="leaveOpen"/>, disposes the stream.</summary>
        public virtual void Release(bool leaveOpen)
        {
            if (_lookahead.Length > 0)
                ArrayPool<byte>.Shared.Return(_lookahead);
            _lookahead = Array.Empty<byte>();
            _start = _end = 0;
            if (!leaveOpen)
                _stream.Dispose();
        }

        /// <summary>Lends the next bytes from memory; only the memory kind can.</summary>
        protected virtual bool TryTake(int length, out ReadOnlyMemory<byte> bytes)
        {
            bytes = default;
            return false;
        }

        /// <summary>One read of the input's own bytes, uncounted.</summary>
        protected virtual int ReadRaw(byte[] buffer, int offset, int count) => _stream.Read(buffer, offset, count);

#if NET
        /// <inheritdoc cref="ReadRaw(byte[], int, int)"/>
        protected virtual int ReadRaw(Span<byte> destination) => _stream.Read(destination);

        /// <inheritdoc cref="ReadRaw(byte[], int, int)"/>
        protected virtual ValueTask<int> ReadRawAsync(Memory<byte> destination, CancellationToken cancellationToken) =>
            _stream.ReadAsync(destination, cancellationToken);
#else
        /// <summary>One asynchronous read of the input's own bytes, uncounted; <paramref name="destination"/> is an array's.</summary>
        protected ValueTask<int> ReadRawAsync(Memory<byte> destination, CancellationToken cancellationToken)
        {
            MemoryMarshal.TryGetArray(destination, out ArraySegment<byte> array);
            return new(_stream.ReadAsync(array.Array!, array.Offset, array.Count, cancellationToken));
        }
#endif

        private int Counted(int n)
        {
            if (n > 0)
                _position += n;
            return n;
        }

        private int FromLookahead(Span<byte> destination)
        {
            Debug.Assert(_start < _end && _end <= _lookahead.Length, "The lookahead lies inside its array.");
            int n = Math.Min(destination.Length, _end - _start);
            _lookahead.AsSpan(_start, n).CopyTo(destination);
            _start += n;
            _position += n;
            return n;
        }
    }
}
