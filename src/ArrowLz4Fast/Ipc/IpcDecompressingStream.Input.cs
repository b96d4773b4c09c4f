using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>Reading the input: framing, metadata and compressed bodies, synchronously and asynchronously.</summary>
    public sealed partial class IpcDecompressingStream
    {
        private const int MaxMetadataLength = (int)DefaultMaxBodyLength - 8 - HeaderSlack;

        private void StartSync()
        {
            long origin = _input.CanSeek ? _input.Position : 0;
            int got = 0;
            int n;
            while (got < 8 && (n = _input.Read(_lookahead, got, 8 - got)) > 0)
                got += n;
            _lookaheadEnd = got;
            if (BeginFile(got))
            {
                _position = 8;
                FindFooter(origin);
            }
            _state = State.NextMessage;
        }

        private async ValueTask StartAsync(CancellationToken cancellationToken)
        {
            long origin = _input.CanSeek ? _input.Position : 0;
            int got = 0;
            int n;
#if NET
            while (got < 8 && (n = await _input.ReadAsync(_lookahead.AsMemory(got, 8 - got), cancellationToken).ConfigureAwait(false)) > 0)
#else
            while (got < 8 && (n = await _input.ReadAsync(_lookahead, got, 8 - got, cancellationToken).ConfigureAwait(false)) > 0)
#endif
                got += n;
            _lookaheadEnd = got;
            if (BeginFile(got))
            {
                _position = 8;
                FindFooter(origin);
            }
            _state = State.NextMessage;
        }

        private void NextMessageSync()
        {
            long start = _position;
            if (AtFileEnd())
                return;
            int got = FillSync(ref _header, 0, 4, 0);
            if (got < 4)
            {
                EndOrTruncated(start, got, "a message length prefix");
                return;
            }
            int length = BinaryPrimitives.ReadInt32LittleEndian(_header);
            if (length == Continuation)
            {
                got = FillSync(ref _header, 4, 4, 0);
                if (got < 4)
                    IpcErrors.ThrowTruncated(start + 4 + got, "a message length prefix", 4, got);
                length = BinaryPrimitives.ReadInt32LittleEndian(_header.AsSpan(4));
            }
            if (!CheckLength(start, length))
            {
                if (_drainAtEnd)
                {
                    while (_input.Read(_body, 0, _body.Length) > 0)
                    {
                    }
                }
                return;
            }
            got = FillSync(ref _header, 8, length, HeaderSlack);
            if (got < length)
                IpcErrors.ThrowTruncated(_position, "message metadata", length, got);
            IpcMessage message = ParseMetadata(length, out FlatReader reader);
            if (!message.Lz4)
                return;
            got = FillSync(ref _body, 0, (int)message.BodyLength, 0);
            if (got < message.BodyLength)
                IpcErrors.ThrowTruncated(_position, "a message body", message.BodyLength, got);
            FinishCompressed(reader, message, length);
        }

        private async ValueTask NextMessageAsync(CancellationToken cancellationToken)
        {
            long start = _position;
            if (AtFileEnd())
                return;
            int got = await FillAsync(0, 4, 0, header: true, cancellationToken).ConfigureAwait(false);
            if (got < 4)
            {
                EndOrTruncated(start, got, "a message length prefix");
                return;
            }
            int length = BinaryPrimitives.ReadInt32LittleEndian(_header);
            if (length == Continuation)
            {
                got = await FillAsync(4, 4, 0, header: true, cancellationToken).ConfigureAwait(false);
                if (got < 4)
                    IpcErrors.ThrowTruncated(start + 4 + got, "a message length prefix", 4, got);
                length = BinaryPrimitives.ReadInt32LittleEndian(_header.AsSpan(4));
            }
            if (!CheckLength(start, length))
            {
                if (_drainAtEnd)
                {
#if NET
                    while (await _input.ReadAsync(_body.AsMemory(), cancellationToken).ConfigureAwait(false) > 0)
#else
                    while (await _input.ReadAsync(_body, 0, _body.Length, cancellationToken).ConfigureAwait(false) > 0)
#endif
                    {
                    }
                }
                return;
            }
            got = await FillAsync(8, length, HeaderSlack, header: true, cancellationToken).ConfigureAwait(false);
            if (got < length)
                IpcErrors.ThrowTruncated(_position, "message metadata", length, got);
            IpcMessage message = ParseMetadata(length, out FlatReader reader);
            if (!message.Lz4)
                return;
            got = await FillAsync(0, (int)message.BodyLength, 0, header: false, cancellationToken).ConfigureAwait(false);
            if (got < message.BodyLength)
                IpcErrors.ThrowTruncated(_position, "a message body", message.BodyLength, got);
            FinishCompressed(reader, message, length);
        }

        private bool AtFileEnd()
        {
            if (_fileEnd < 0 || _position < _fileEnd)
                return false;
            _state = State.End;
            return true;
        }

        private void EndOrTruncated(long start, int got, string what)
        {
            // The input may end between messages, as Arrow's reader allows; not inside a length prefix.
            if (got != 0)
                IpcErrors.ThrowTruncated(start + got, what, 4, got);
            _state = State.End;
        }

        /// <summary>Handles the end-of-stream marker and refuses impossible metadata lengths; true when metadata follows.</summary>
        private bool CheckLength(long start, int length)
        {
            if (length == 0)
            {
                BinaryPrimitives.WriteInt32LittleEndian(_header, Continuation);
                BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), 0);
                BeginHeader(8, State.End);
                return false;
            }
            if (length < 0 || length > MaxMetadataLength)
                IpcErrors.Throw(start, $"the message metadata length {length} is negative or too large");
            return true;
        }

        // What the last schema says its batches need, and the check of each compressed batch against it.
        private readonly IpcStreamLayouts _layouts = new IpcStreamLayouts();

        private IpcMessage ParseMetadata(int length, out FlatReader reader)
        {
            long metadataOffset = _position - length;
            reader = new FlatReader(_header, 8, length, metadataOffset);
            IpcMessage message = IpcMessageParser.Parse(reader);
            _layouts.Observe(reader, message);
            BinaryPrimitives.WriteInt32LittleEndian(_header, Continuation);
            BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), length);
            if (!message.Lz4)
            {
                _passRemaining = message.BodyLength;
                BeginHeader(8 + length, message.BodyLength > 0 ? State.PassBody : State.NextMessage);
                return message;
            }
            if (message.BodyLength > DefaultMaxBodyLength)
                IpcErrors.Throw(metadataOffset, $"the compressed body of {message.BodyLength} bytes is longer than the longest array");
            _layouts.Check(message, metadataOffset);
            IpcBodyLayout.CheckExtents(reader, message);
            if (_items.Length < message.BufferCount)
            {
                if (_items.Length > 0)
                    ArrayPool<IpcBufferItem>.Shared.Return(_items);
                _items = ArrayPool<IpcBufferItem>.Shared.Rent(message.BufferCount);
            }
            _bodyOffset = _position;
            return message;
        }

        private void FinishCompressed(FlatReader reader, in IpcMessage message, int length)
        {
            _bodyLength = (int)message.BodyLength;
            long output = IpcBodyLayout.Compute(reader, message, _body.AsSpan(0, _bodyLength), _bodyOffset, _items, _maxBodyLength);
            _itemCount = message.BufferCount;
            int rewritten = IpcBodyLayout.Rewrite(_header, 8, length, _bodyOffset - length, message, _items, output);
            BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), rewritten);
            _outputLength = (int)output;
            _outputRead = 0;
            _windowReady = false;
            BeginHeader(8 + rewritten, output > 0 ? State.Body : State.NextMessage);
        }

        private void BeginHeader(int length, State next)
        {
            _headerLength = length;
            _headerRead = 0;
            _afterHeader = next;
            _state = State.Header;
        }

        /// <summary>Reads up to <paramref name="count"/> bytes to <paramref name="offset"/>, growing the buffer as they arrive; returns how many came.</summary>
        private int FillSync(ref byte[] buffer, int offset, int count, int slack)
        {
            int got = 0;
            while (got < count)
            {
                int chunk = Reserve(ref buffer, offset, got, count, slack);
                int n = ReadInput(buffer, offset + got, chunk);
                if (n <= 0)
                    break;
                got += n;
            }
            return got;
        }

        private async ValueTask<int> FillAsync(int offset, int count, int slack, bool header, CancellationToken cancellationToken)
        {
            int got = 0;
            while (got < count)
            {
                int chunk = header ? Reserve(ref _header, offset, got, count, slack) : Reserve(ref _body, offset, got, count, slack);
                byte[] buffer = header ? _header : _body;
                int n = await ReadInputAsync(buffer.AsMemory(offset + got, chunk), cancellationToken).ConfigureAwait(false);
                if (n <= 0)
                    break;
                got += n;
            }
            return got;
        }

        /// <summary>
        /// Makes room for the next read and returns its size. The buffer grows at most by what has arrived so far, so a
        /// length that lies costs no more memory than the input really holds (a seekable input is asked up front).
        /// </summary>
        private int Reserve(ref byte[] buffer, int offset, int got, int count, int slack)
        {
            int want = count - got;
            int room = buffer.Length - slack - offset - got;
            if (room <= 0 || (room < want && room < InitialChunk))
            {
                long step = Math.Min(want, Math.Max(got, InitialChunk));
                if (_input.CanSeek && _lookaheadStart == _lookaheadEnd && _input.Length - _input.Position >= want)
                    step = want;
                long size = Math.Max((long)offset + got + step + slack, Math.Min(buffer.Length * 2L, (long)offset + count + slack));
                byte[] larger = ArrayPool<byte>.Shared.Rent((int)Math.Min(size, int.MaxValue - 64));
                buffer.AsSpan(0, offset + got).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(buffer);
                buffer = larger;
                room = buffer.Length - slack - offset - got;
            }
            return Math.Min(want, room);
        }

        /// <summary>Reads into one of the stream's own arrays, straight through the array overload on every target.</summary>
        private int ReadInput(byte[] buffer, int offset, int count)
        {
            if (_lookaheadStart < _lookaheadEnd)
                return FromLookahead(buffer.AsSpan(offset, count));
            int n = _input.Read(buffer, offset, count);
            if (n > 0)
                _position += n;
            return n;
        }

        /// <summary>Reads into the caller's span, when a message passes through.</summary>
        private int ReadInput(Span<byte> destination)
        {
            if (_lookaheadStart < _lookaheadEnd)
                return FromLookahead(destination);
#if NET
            int n = _input.Read(destination);
#else
            // netstandard2.0's Stream reads arrays only; the body buffer is idle while a body passes through (never
            // while the stream fills it: that goes through the array overload above).
            int n = _input.Read(_body, 0, Math.Min(destination.Length, _body.Length));
            _body.AsSpan(0, Math.Max(n, 0)).CopyTo(destination);
#endif
            if (n > 0)
                _position += n;
            return n;
        }

        private async ValueTask<int> ReadInputAsync(Memory<byte> destination, CancellationToken cancellationToken)
        {
            if (_lookaheadStart < _lookaheadEnd)
                return FromLookahead(destination.Span);
#if NET
            int n = await _input.ReadAsync(destination, cancellationToken).ConfigureAwait(false);
#else
            int n;
            if (MemoryMarshal.TryGetArray(destination, out ArraySegment<byte> array))
            {
                n = await _input.ReadAsync(array.Array!, array.Offset, array.Count, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                n = await _input.ReadAsync(_body, 0, Math.Min(destination.Length, _body.Length), cancellationToken).ConfigureAwait(false);
                _body.AsSpan(0, Math.Max(n, 0)).CopyTo(destination.Span);
            }
#endif
            if (n > 0)
                _position += n;
            return n;
        }

        private int FromLookahead(Span<byte> destination)
        {
            int n = Math.Min(destination.Length, _lookaheadEnd - _lookaheadStart);
            _lookahead.AsSpan(_lookaheadStart, n).CopyTo(destination);
            _lookaheadStart += n;
            _position += n;
            return n;
        }
    }
}
