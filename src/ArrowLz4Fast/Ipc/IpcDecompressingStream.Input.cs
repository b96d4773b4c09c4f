using System;
using System.Buffers;
using System.Buffers.Binary;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Reading the input: the file magic, then each message's length prefix, metadata and compressed body. One state
    /// machine (<see cref="Step"/>) does all of it and says which bytes it needs next; only the code that fills them
    /// comes twice, synchronous and asynchronous, as in the frame reader.
    /// </summary>
    public sealed partial class IpcDecompressingStream
    {
        private const int MaxMetadataLength = (int)DefaultMaxBodyLength - 8 - HeaderSlack;

        // Where Step stands: each value after Open and Message names the bytes the last fill brought.
        private enum Phase
        {
            Open,
            Magic,
            Message,
            Prefix,
            LongPrefix,
            Length,
            Metadata,
            Body,
            Gathered,
            Drained,
        }

        // Where a fill reads to: the 8-byte lookahead (straight from the input, uncounted), the metadata or body buffer
        // (grown as bytes arrive), or nowhere (the input is read to its end).
        private enum Target
        {
            Lookahead,
            Header,
            Body,
            Drain,
            Gather,
        }

        // The message in progress, kept across fills.
        private Phase _phase;
        private long _origin;
        private long _messageStart;
        private int _metadataLength;
        private IpcMessage _message;
        private FlatReader _reader;

        // The fill Step asked for.
        private Target _fillTarget;
        private int _fillOffset;
        private int _fillCount;
        private int _fillSlack;

        private void NextMessageSync()
        {
            // A message starts afresh on each call, as an exception leaves the input where it stopped.
            _phase = _state == State.Start ? Phase.Open : Phase.Message;
            _synchronous = true;
            int got = 0;
            while (Step(got))
                got = FillSync();
        }

        private async ValueTask NextMessageAsync(CancellationToken cancellationToken)
        {
            _phase = _state == State.Start ? Phase.Open : Phase.Message;
            _synchronous = false;
            int got = 0;
            while (Step(got))
                got = await FillAsync(cancellationToken).ConfigureAwait(false);
        }

        /// <summary>
        /// Advances the message loop with the <paramref name="got"/> bytes the last fill brought. Returns true with the
        /// next fill in <c>_fill*</c>, or false once the stream's state has moved on (to serving a header, passing a
        /// body through, or the end).
        /// </summary>
        private bool Step(int got)
        {
            while (true)
            {
                switch (_phase)
                {
                    case Phase.Open:
                        _origin = _input.Seekable ? _input.Offset : 0;
                        return Want(Phase.Magic, Target.Lookahead, 0, 8, 0);
                    case Phase.Magic:
                        // An IPC file is read as the stream it embeds, up to its footer when the input can say where that starts.
                        if (_input.SkipFileMagic())
                            _fileEnd = _input.FindFooter(_origin);
                        _state = State.NextMessage;
                        _phase = Phase.Message;
                        break;
                    case Phase.Message:
                        _messageStart = _input.Position;
                        BeginMessage();
                        if (AtFileEnd())
                            return false;
                        return Want(Phase.Prefix, Target.Header, 0, 4, 0);
                    case Phase.Prefix:
                        if (got < 4)
                        {
                            EndOrTruncated(_messageStart, got, "a message length prefix");
                            return false;
                        }
                        _metadataLength = BinaryPrimitives.ReadInt32LittleEndian(_header);
                        // 0xFFFFFFFF is the continuation marker of the current format: the length follows it.
                        if (_metadataLength == Continuation)
                            return Want(Phase.LongPrefix, Target.Header, 4, 4, 0);
                        _phase = Phase.Length;
                        break;
                    case Phase.LongPrefix:
                        if (got < 4)
                            IpcErrors.ThrowTruncated(_messageStart + 4 + got, "a message length prefix", 4, got);
                        _metadataLength = BinaryPrimitives.ReadInt32LittleEndian(_header.AsSpan(4));
                        _phase = Phase.Length;
                        break;
                    case Phase.Length:
                        if (CheckLength(_messageStart, _metadataLength))
                            return Want(Phase.Metadata, Target.Header, 8, _metadataLength, HeaderSlack);
                        // The end-of-stream marker: the header that says so is queued; the input may still be drained.
                        return _drainAtEnd && Want(Phase.Drained, Target.Drain, 0, 0, 0);
                    case Phase.Metadata:
                        if (got < _metadataLength)
                            IpcErrors.ThrowTruncated(_input.Position, "message metadata", _metadataLength, got);
                        ParseMetadata(_metadataLength, out _reader);
                        if (_projection is not null && Project())
                            return true;
                        // Anything but an LZ4 body passes through as it is: its header is queued already.
                        if (!_message.Lz4)
                            return false;
                        if (_input.TryBorrow((int)_message.BodyLength, out _bodySource) || TryDeferBody(_reader, _message))
                        {
                            FinishCompressed(_reader, _message, _metadataLength);
                            return false;
                        }
                        return Want(Phase.Body, Target.Body, 0, (int)_message.BodyLength, 0);
                    case Phase.Body:
                        if (got < _message.BodyLength)
                            IpcErrors.ThrowTruncated(_input.Position, "a message body", _message.BodyLength, got);
                        // Read after the fill: the fill may have replaced the body buffer with a larger one.
                        _bodySource = _body.AsMemory(0, (int)_message.BodyLength);
                        FinishCompressed(_reader, _message, _metadataLength);
                        return false;
                    case Phase.Gathered:
                        if (!Gathered())
                            return false;
                        break;
                    default:
                        return false;
                }
            }
        }

        private bool Want(Phase next, Target target, int offset, int count, int slack)
        {
            _phase = next;
            _fillTarget = target;
            _fillOffset = offset;
            _fillCount = count;
            _fillSlack = slack;
            return true;
        }

        private bool AtFileEnd()
        {
            if (_fileEnd < 0 || _input.Position < _fileEnd)
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
        private readonly IpcStreamLayouts _layouts;

        /// <summary>
        /// Parses and checks the metadata in <c>_header</c>[8..8+<paramref name="length"/>) and queues its header as the
        /// current format writes it (continuation marker, length). A message that passes through is set up to do so; an
        /// LZ4 one is checked against its schema, and its buffers' extents against the body, before its body is read.
        /// The message is left in <c>_message</c>, not returned: the caller would copy it again.
        /// </summary>
        private void ParseMetadata(int length, out FlatReader reader)
        {
            long metadataOffset = _input.Position - length;
            // A body is all there unless the message loop defers it.
            _source = _wholeBody;
            reader = new FlatReader(_header, 8, length, metadataOffset);
            // A schema this thread verified before, byte for byte, is not walked again; nor is a message its file
            // reader verified whole at its file offset (errors there name the batch), served from that reader's array.
            bool known = IpcVerifiedSchema.TryMatch(reader.Data, out IpcMessage message, out int nodes, out int buffers);
            if (!known && !_input.TryVerified(metadataOffset, length, out message))
                message = IpcMessageParser.Parse(reader);
            _message = message;
            _messagesParsed++;
            ObserveMessage(message, length);
            if (known)
            {
                _layouts.ObserveVerifiedSchema(nodes, buffers);
            }
            else
            {
                _layouts.Observe(reader, message);
                if (message.HeaderType == IpcMessageParser.HeaderSchema && _layouts.TryCountsOnly(out nodes, out buffers))
                    IpcVerifiedSchema.Remember(reader.Data, message, nodes, buffers);
            }
            BinaryPrimitives.WriteInt32LittleEndian(_header, Continuation);
            BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), length);
            if (!message.Lz4)
            {
                _passRemaining = message.BodyLength;
                BeginHeader(8 + length, message.BodyLength > 0 ? State.PassBody : State.NextMessage);
                return;
            }
            // Bounds before allocation: the body is read only once its length and its buffers are known to be sane.
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
            _bodyOffset = _input.Position;
            _known = Known.MetadataBuffers;
        }

        /// <summary>Lays the read body out for decoding and queues the metadata rewritten for the decompressed body.</summary>
        private void FinishCompressed(FlatReader reader, in IpcMessage message, int length)
        {
            for (int i = 0; i < message.BufferCount; i++)
                _items[i].Skipped = _projected ? _gather[i].Source - _gather[i].Destination : 0;
            long output = IpcBodyLayout.Compute(reader, message, CompressedBody, _bodyOffset, _items, _maxBodyLength);
            _itemCount = message.BufferCount;
            _source.Lay(_bodySource, _bodyOffset, _items, _itemCount);
            _known = Known.LaidOut;
            int rewritten = IpcBodyLayout.Rewrite(_header, 8, length, reader.InputOffset(0), message, _items, output);
            BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), rewritten);
            _outputLength = (int)output;
            _outputRead = 0;
            _windowReady = false;
            BeginHeader(8 + rewritten, output > 0 ? State.Body : State.NextMessage);
        }

        /// <summary>The compressed body being served: in the body buffer, or borrowed from an input in memory.</summary>
        private ReadOnlySpan<byte> CompressedBody => _bodySource.Span;

        private void BeginHeader(int length, State next)
        {
            _headerLength = length;
            _headerRead = 0;
            _afterHeader = next;
            _state = State.Header;
        }

        // The fill code, in its two forms. Each does what Step asked for in _fill* and returns how many bytes came.

        private int FillSync()
        {
            switch (_fillTarget)
            {
                case Target.Lookahead:
                    return _input.Peek(_fillCount);
                case Target.Drain:
                    _input.Drain(_body);
                    return 0;
                case Target.Gather:
                    return GatherSync();
            }
            int got = 0;
            while (got < _fillCount)
            {
                int chunk = Reserve(ref FillBuffer, _fillOffset, got, _fillCount, _fillSlack);
                int m = _input.Read(FillBuffer, _fillOffset + got, chunk);
                if (m <= 0)
                    break;
                got += m;
            }
            return got;
        }

        private async ValueTask<int> FillAsync(CancellationToken cancellationToken)
        {
            switch (_fillTarget)
            {
                case Target.Lookahead:
                    return await _input.PeekAsync(_fillCount, cancellationToken).ConfigureAwait(false);
                case Target.Drain:
                    await _input.DrainAsync(_body, cancellationToken).ConfigureAwait(false);
                    return 0;
                case Target.Gather:
                    return await GatherAsync(cancellationToken).ConfigureAwait(false);
            }
            int got = 0;
            while (got < _fillCount)
            {
                int chunk = Reserve(ref FillBuffer, _fillOffset, got, _fillCount, _fillSlack);
                int m = await _input.ReadAsync(FillBuffer.AsMemory(_fillOffset + got, chunk), _body, cancellationToken).ConfigureAwait(false);
                if (m <= 0)
                    break;
                got += m;
            }
            return got;
        }

        /// <summary>The array a metadata or body fill reads into (it may be replaced by a larger one as bytes arrive).</summary>
        private ref byte[] FillBuffer => ref _fillTarget == Target.Header ? ref _header : ref _body;

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
                if (_input.Seekable && !_input.HasLookahead && _input.Left >= want)
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
    }
}
