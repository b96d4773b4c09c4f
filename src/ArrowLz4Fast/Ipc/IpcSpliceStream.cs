using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A read-only, seekable IPC stream spliced from pieces: bytes in memory (a schema message, cached dictionary
    /// messages, a batch's metadata, the end-of-stream marker) and ranges of a file read at positions only when the
    /// stream is read there. <see cref="IpcDecompressingStream"/> reads it like any seekable input, so a projection
    /// seeks past the unselected buffers of a file range and they are never read. A reader kept open on it reads on
    /// when more pieces are given (<see cref="Continue"/>): the stream then goes on where it ended.
    /// </summary>
    internal sealed class IpcSpliceStream : Stream
    {
        private readonly IpcFileSource _file;
        private Piece[] _pieces;
        private int _count;
        private long _length;
        private long _position;
        private int _piece;

        /// <param name="file">Where the file ranges are read.</param>
        /// <param name="pieces">The pieces in order (the array is kept; <paramref name="count"/> of them are used).</param>
        /// <param name="count">How many pieces.</param>
        public IpcSpliceStream(IpcFileSource file, Piece[] pieces, int count)
        {
            _file = file;
            _pieces = pieces;
            Place(pieces, count, 0);
        }

        /// <inheritdoc/>
        public override bool CanRead => true;

        /// <inheritdoc/>
        public override bool CanSeek => true;

        /// <inheritdoc/>
        public override bool CanWrite => false;

        /// <inheritdoc/>
        public override long Length => _length;

        /// <inheritdoc/>
        public override long Position
        {
            get => _position;
            set
            {
                if (value < 0) throw new ArgumentOutOfRangeException(nameof(value));
                _position = value;
            }
        }

        /// <summary>
        /// Makes <paramref name="pieces"/> the stream's next bytes, after its end: the pieces before are dropped (read
        /// already), and positions go on counting from the end. The array is kept, as by the constructor.
        /// </summary>
        public void Continue(Piece[] pieces, int count) => Place(pieces, count, _length);

        /// <summary>
        /// Whether bytes [<paramref name="position"/>, +<paramref name="length"/>) of this stream are exactly the
        /// flatbuffer of a piece given as verified (<see cref="Piece.Verified"/>): then the bytes read there are the
        /// piece's own, and <paramref name="message"/> is what verifying them found.
        /// </summary>
        public bool TryVerified(long position, int length, out IpcMessage message)
        {
            for (int i = 0; i < _count; i++)
            {
                ref Piece p = ref _pieces[i];
                if (p.IsVerified && position == p.Start + p.Prefix && length == p.Length - p.Prefix)
                {
                    message = p.Message;
                    return true;
                }
            }
            message = default;
            return false;
        }

        /// <summary>
        /// Where <paramref name="position"/> of this stream lies in the file: its place in a file range, or the file
        /// offset its memory piece stands for.
        /// </summary>
        public long FileOffsetOf(long position)
        {
            for (int i = 0; i < _count; i++)
            {
                ref Piece p = ref _pieces[i];
                if (position < p.Start + p.Length || i == _count - 1)
                    return p.FileOffset + Math.Max(0, Math.Min(position - p.Start - p.Skew, p.InFile ? p.Length : p.FileLength));
            }
            return 0;
        }

        /// <inheritdoc/>
        public override int Read(byte[] buffer, int offset, int count) => Read(new Span<byte>(buffer, offset, count));

#if NET
        /// <inheritdoc/>
        public override int Read(Span<byte> buffer)
#else
        /// <summary>Reads into a span.</summary>
        public int Read(Span<byte> buffer)
#endif
        {
            if (!Locate(out long within))
                return 0;
            ref Piece piece = ref _pieces[_piece];
            int n = (int)Math.Min(buffer.Length, piece.Length - within);
            if (piece.InFile)
            {
                n = _file.ReadAt(piece.FileOffset + within, buffer.Slice(0, n));
            }
            else
            {
                piece.Bytes.Span.Slice((int)within, n).CopyTo(buffer);
            }
            _position += n;
            return n;
        }

        /// <inheritdoc/>
        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadCoreAsync(new Memory<byte>(buffer, offset, count), cancellationToken).AsTask();

#if NET
        /// <inheritdoc/>
        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
            ReadCoreAsync(buffer, cancellationToken);
#endif

        /// <inheritdoc/>
        public override long Seek(long offset, SeekOrigin origin)
        {
            long target = origin switch
            {
                SeekOrigin.Begin => offset,
                SeekOrigin.Current => _position + offset,
                _ => _length + offset,
            };
            Position = target;
            return target;
        }

        /// <summary>Does nothing: the stream is read-only.</summary>
        public override void Flush()
        {
        }

        /// <summary>Not supported.</summary>
        public override void SetLength(long value) => throw new NotSupportedException();

        /// <summary>Not supported.</summary>
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        private async ValueTask<int> ReadCoreAsync(Memory<byte> buffer, CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (!Locate(out long within))
                return 0;
            Piece[] pieces = _pieces;
            int at = _piece;
            int n = (int)Math.Min(buffer.Length, pieces[at].Length - within);
            if (pieces[at].InFile)
                n = await _file.ReadAtAsync(pieces[at].FileOffset + within, buffer.Slice(0, n), cancellationToken).ConfigureAwait(false);
            else
                pieces[at].Bytes.Span.Slice((int)within, n).CopyTo(buffer.Span);
            _position += n;
            return n;
        }

        private void Place(Piece[] pieces, int count, long at)
        {
            _pieces = pieces;
            _count = count;
            _piece = 0;
            for (int i = 0; i < count; i++)
            {
                _pieces[i].Start = at;
                at += _pieces[i].Length;
            }
            _length = at;
        }

        /// <summary>Makes the piece holding the position the current one (<c>_piece</c>) and gives the position's place in it; false at or past the end.</summary>
        private bool Locate(out long within)
        {
            within = 0;
            if (_position >= _length)
                return false;
            // Reads go forward: start from the last piece read, from the first when the stream was moved back.
            if (_piece >= _count || _pieces[_piece].Start > _position)
                _piece = 0;
            while (_pieces[_piece].Start + _pieces[_piece].Length <= _position)
                _piece++;
            within = _position - _pieces[_piece].Start;
            return true;
        }

        /// <summary>One piece of the stream.</summary>
        internal struct Piece
        {
            /// <summary>The piece's bytes, for a piece in memory.</summary>
            public ReadOnlyMemory<byte> Bytes;

            /// <summary>The piece is the file range [<see cref="FileOffset"/>, +<see cref="Length"/>).</summary>
            public bool InFile;

            /// <summary>Where the piece lies in the file, or (in memory) the file offset its bytes stand for.</summary>
            public long FileOffset;

            /// <summary>For a piece in memory: the bytes at its start that stand for no file bytes (a prefix made up), and how many file bytes follow.</summary>
            public long Skew;

            public long FileLength;

            public long Length;

            /// <summary>Where the piece starts in the stream (set by the stream).</summary>
            public long Start;

            /// <summary>The piece is one message's metadata, verified whole before it was given: <see cref="Message"/> is what that found.</summary>
            public bool IsVerified;

            /// <summary>For a verified piece: the length prefix's bytes, before the flatbuffer.</summary>
            public int Prefix;

            /// <summary>For a verified piece: what <see cref="IpcMessageParser.Parse"/> found in its flatbuffer.</summary>
            public IpcMessage Message;

            public static Piece Memory(ReadOnlyMemory<byte> bytes, long fileOffset, long skew = 0, long fileLength = 0) =>
                new() { Bytes = bytes, FileOffset = fileOffset, Skew = skew, FileLength = fileLength, Length = bytes.Length };

            /// <summary>
            /// A message's metadata (its length prefix, then the flatbuffer <paramref name="verified"/> read), at
            /// <paramref name="fileOffset"/> in the file, that <see cref="IpcMessageParser.Parse"/> verified whole in
            /// these very bytes, finding <paramref name="message"/>; they must not change while the piece is used.
            /// </summary>
            public static Piece Verified(ReadOnlyMemory<byte> bytes, long fileOffset, in FlatReader verified, in IpcMessage message) =>
                new() { Bytes = bytes, FileOffset = fileOffset, FileLength = bytes.Length, Length = bytes.Length, IsVerified = true, Prefix = bytes.Length - verified.Length, Message = message };

            public static Piece File(long offset, long length) => new() { InFile = true, FileOffset = offset, Length = length };
        }
    }
}
