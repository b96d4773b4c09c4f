using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>The message loop: bytes in, complete messages out, each compressed or passed through in order.</summary>
    public sealed partial class IpcCompressingStream
    {
        private const int InitialMessageLength = 4096;
        private const int Continuation = -1;
        private const int MaxMetadataLength = (int)IpcDecompressingStream.DefaultMaxBodyLength - 8;

        private static readonly byte[] s_fileMagic = { (byte)'A', (byte)'R', (byte)'R', (byte)'O', (byte)'W', (byte)'1' };

        private enum Phase
        {
            Magic,
            MagicPadding,
            Prefix,
            LongPrefix,
            Metadata,
            Body,
            Footer,
            Done,
        }

        // The message being filled: its bytes from its first, how many are there, how many the current phase needs.
        private byte[] _message;
        private byte[]? _spare;
        private int _have;
        private long _need = 6;
        private Phase _phase = Phase.Magic;
        private bool _file;
        private int _prefixLength;
        private int _metadataLength;
        private long _messageStart;
        private long _inputPosition;
        private long _outputPosition;
        private FlatReader _reader;
        private IpcMessage _parsed;
        private readonly IpcStreamLayouts _layouts = new IpcStreamLayouts();

        // The message being filled: compressed (planned in _current), and encoded buffer by buffer as it arrives.
        private bool _compress;
        private bool _inOrder;
        private int _current;

        /// <summary>
        /// Takes bytes of the current message; stops after a message completes (its output, and the one before it, are
        /// then queued) or when <paramref name="bytes"/> is used up. Returns how many it took.
        /// </summary>
        private int Accept(ReadOnlySpan<byte> bytes)
        {
            Debug.Assert(_outputCount == 0, "the output is written after every message");
            int taken = 0;
            while (true)
            {
                if (_phase == Phase.Done)
                {
                    if (taken < bytes.Length)
                        IpcErrors.Throw(_inputPosition, "bytes follow the end of the IPC file (its footer and ARROW1)");
                    return taken;
                }
                long missing = _phase == Phase.Footer ? bytes.Length - taken : _need - _have;
                int n = (int)Math.Min(Math.Max(missing, 0), bytes.Length - taken);
                if (n > 0)
                {
                    EnsureCapacity((long)_have + n);
                    if (_phase == Phase.Body && _inOrder)
                        TakeBody(bytes.Slice(taken, n));
                    else
                        AliasSafeCopy.Copy(bytes.Slice(taken, n), _message.AsSpan(_have));
                    _have += n;
                    taken += n;
                    _inputPosition += n;
                }
                if (_phase == Phase.Footer)
                {
                    TryFinishFile();
                    return taken;
                }
                if (_have < _need)
                    return taken;
                if (Advance())
                    return taken;
            }
        }

        /// <summary>Moves to the next phase once the current one has its bytes; true when output was queued.</summary>
        private bool Advance()
        {
            switch (_phase)
            {
                case Phase.Magic:
                    if (_message.AsSpan(0, s_fileMagic.Length).SequenceEqual(s_fileMagic))
                    {
                        _file = true;
                        return Need(Phase.MagicPadding, 8);
                    }
                    return Need(Phase.Prefix, 4);
                case Phase.MagicPadding:
                    QueueCopy(_message.AsSpan(0, 8));
                    StartMessage();
                    return true;
                case Phase.Prefix:
                    int length = BinaryPrimitives.ReadInt32LittleEndian(_message);
                    if (length == Continuation)
                        return Need(Phase.LongPrefix, 8);
                    // An IPC file's messages carry the continuation marker; what does not is its footer.
                    if (_file)
                        return Need(Phase.Footer, 0);
                    return Metadata(4, length);
                case Phase.LongPrefix:
                    return Metadata(8, BinaryPrimitives.ReadInt32LittleEndian(_message.AsSpan(4)));
                case Phase.Metadata:
                    return ParseMetadata();
                default:
                    Debug.Assert(_phase == Phase.Body, "the footer and the end are handled by Accept");
                    ProcessMessage();
                    return true;
            }
        }

        private bool Need(Phase phase, long need)
        {
            _phase = phase;
            _need = need;
            return false;
        }

        private void StartMessage()
        {
            _have = 0;
            _messageStart = _inputPosition;
            Need(Phase.Prefix, 4);
        }

        private bool Metadata(int prefixLength, int length)
        {
            if (length == 0)
            {
                // The end-of-stream marker passes as it is, after the batch before it; in a file the footer follows it.
                Drain();
                QueueCopy(_message.AsSpan(0, prefixLength));
                StartMessage();
                if (_file)
                    Need(Phase.Footer, 0);
                return true;
            }
            if (length < 0 || length > MaxMetadataLength)
                IpcErrors.Throw(_messageStart, $"the message metadata length {length} is negative or too large");
            _prefixLength = prefixLength;
            _metadataLength = length;
            return Need(Phase.Metadata, (long)prefixLength + length);
        }

        private bool ParseMetadata()
        {
            _reader = new FlatReader(_message, _prefixLength, _metadataLength, _messageStart + _prefixLength);
            _parsed = IpcMessageParser.Parse(_reader, buffers: true);
            _layouts.Observe(_reader, _parsed);
            long header = (long)_prefixLength + _metadataLength;
            if (_parsed.BodyLength > IpcDecompressingStream.DefaultMaxBodyLength - header)
                IpcErrors.Throw(_messageStart + _prefixLength, $"message metadata, the body of {_parsed.BodyLength} bytes is longer than the longest array");
            bool compressible = IpcMessageCompressor.IsCompressible(_parsed);
            if (compressible)
                CheckBatch();
            _ringMessage = compressible && GoesToRing();
            // What does not go to the ring follows every message in it, and may need the helpers its worker holds.
            if (!_ringMessage)
                DrainRing();
            _compress = compressible && !_ringMessage && PlanBatch();
            _inOrder = _compress && _compressors[_current].EncodesInOrder(_encoder);
            if (_inOrder)
            {
                // Frames whose blocks go to the helpers start once the batch still on them is done, so the threads
                // stay within the degree; frames on the calling thread alone overlap with it.
                if (_compressors[_current].InOrderUsesHelpers(_encoder))
                    Drain();
                _compressors[_current].BeginInOrder();
            }
            if (_parsed.BodyLength == 0)
            {
                ProcessMessage();
                return true;
            }
            // Room for the body at once, so that a large one is not copied as it grows; a declared length is trusted only
            // up to a bound, beyond it the array grows as the bytes arrive.
            EnsureCapacity(header + Math.Min(_parsed.BodyLength, MaxBodyReserve));
            return Need(Phase.Body, header + _parsed.BodyLength);
        }

        private const int MaxBodyReserve = 64 * 1024 * 1024;

        /// <summary>Checks a batch's metadata before its body arrives: the schema, the buffers inside the body.</summary>
        private void CheckBatch()
        {
            // The parser reads the field nodes of compressed batches only; the schema check needs their count here.
            (_parsed.Nodes, _parsed.NodeCount) = _reader.Vector(_parsed.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            _layouts.Check(_parsed, _messageStart + _prefixLength);
            IpcBodyLayout.CheckExtents(_reader, _parsed);
        }

        /// <summary>
        /// Plans a checked batch's compression in the compressor not busy with the batch before it;
        /// <see langword="false"/> when the frames' worst case would not fit one array (the message then goes as it is).
        /// </summary>
        private bool PlanBatch()
        {
            _current = _pending.Message.Bytes is null ? 0 : 1 - _pending.Compressor;
            return _compressors[_current].Plan(_reader, _parsed, _encoder);
        }

        /// <summary>
        /// Takes body bytes of a message encoded in order: each buffer whole in <paramref name="bytes"/> is encoded from
        /// there, without a copy; a buffer split over writes is gathered in the message array and encoded once whole.
        /// The bytes between buffers, and a buffer that goes raw, are kept in the message array, which then holds all a
        /// message needs should no buffer save space.
        /// </summary>
        private void TakeBody(ReadOnlySpan<byte> bytes)
        {
            IpcBodyCompressor compressor = _compressors[_current];
            int header = _prefixLength + _metadataLength;
            int at = _have - header;
            while (!bytes.IsEmpty)
            {
                bool more = compressor.TryPeekNext(out int start, out int length);
                if (!more || at < start)
                {
                    int gap = more ? Math.Min(start - at, bytes.Length) : bytes.Length;
                    AliasSafeCopy.Copy(bytes.Slice(0, gap), _message.AsSpan(header + at));
                    bytes = bytes.Slice(gap);
                    at += gap;
                    continue;
                }
                int end = start + length;
                if (at == start && bytes.Length >= length)
                {
                    ReadOnlySpan<byte> whole = bytes.Slice(0, length);
                    if (compressor.EncodeNext(whole, _encoder, _minSpaceSavings))
                        AliasSafeCopy.Copy(whole, _message.AsSpan(header + start));
                    bytes = bytes.Slice(length);
                    at = end;
                    continue;
                }
                int part = Math.Min(end - at, bytes.Length);
                AliasSafeCopy.Copy(bytes.Slice(0, part), _message.AsSpan(header + at));
                bytes = bytes.Slice(part);
                at += part;
                if (at == end)
                    compressor.EncodeNext(_message.AsSpan(header + start, length), _encoder, _minSpaceSavings);
            }
        }

        private void GiveBack(byte[] message)
        {
            if (_spare is null && message.Length <= MaxSpareLength)
                _spare = message;
            else
                ArrayPool<byte>.Shared.Return(message);
        }

        // A spare message array larger than this goes back to the pool instead of being kept.
        private const int MaxSpareLength = 64 * 1024 * 1024;

        private void EnsureCapacity(long length)
        {
            if (length <= _message.Length)
                return;
            Debug.Assert(length <= int.MaxValue, "a message's length was checked against the longest array");
            byte[] larger = ArrayPool<byte>.Shared.Rent((int)Math.Max(length, Math.Min(2L * _message.Length, IpcDecompressingStream.DefaultMaxBodyLength)));
            _message.AsSpan(0, _have).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_message);
            _message = larger;
        }

        /// <summary>At <c>Dispose</c>: the input must end between messages, or after a whole file.</summary>
        private void CheckComplete()
        {
            switch (_phase)
            {
                case Phase.Done:
                    return;
                case Phase.Magic when _have == 0:
                    return;
                case Phase.Prefix when _have == 0 && !_file:
                    return;
                case Phase.Footer:
                    IpcErrors.Throw(_messageStart, $"the IPC file ends without its footer's length and ARROW1 ({_have} byte(s) after the last message)");
                    break;
                default:
                    string what = _phase switch
                    {
                        Phase.Magic or Phase.MagicPadding => "the file signature",
                        Phase.Prefix or Phase.LongPrefix => _file ? "the messages of an IPC file, before its footer" : "a message length prefix",
                        Phase.Metadata => "message metadata",
                        _ => "a message body",
                    };
                    IpcErrors.ThrowTruncated(_messageStart, what, _need, _have);
                    break;
            }
        }

        private void Release()
        {
            AbandonPending();
            foreach (IpcBodyCompressor compressor in _compressors)
                compressor.Dispose();
            ReleaseOutput();
            _ring?.Dispose();
            _ring = null;
            if (_message.Length > 0)
                ArrayPool<byte>.Shared.Return(_message);
            _message = Array.Empty<byte>();
            if (_spare is not null)
                ArrayPool<byte>.Shared.Return(_spare);
            _spare = null;
        }
    }
}
