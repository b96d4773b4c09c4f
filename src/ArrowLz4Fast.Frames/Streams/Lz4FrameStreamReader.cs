using System;
using System.Buffers.Binary;
using System.IO;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The decoding half of <see cref="Lz4FrameStream"/>: a resumable frame decoder over an inner stream. It accepts,
    /// rejects and reports exactly what <see cref="Lz4FrameDecoder.Decode(System.ReadOnlySpan{byte}, System.Span{byte}, out int, out int, Lz4FrameDecoderOptions)"/> does on the same bytes (same checks in the
    /// same order, the messages of <see cref="Lz4FrameErrors"/>, offsets in the compressed stream).
    /// </summary>
    /// <remarks>
    /// One step function, <see cref="Step"/>, serves <see cref="Read"/> and <see cref="ReadAsync"/>: it decodes what
    /// the buffered input allows and otherwise says how many bytes it needs (<see cref="Lz4StreamNeed"/>); only the
    /// fill of <see cref="Lz4StreamInput"/> comes in a sync and an async form. Its state lives in three small types:
    /// compressed bytes are buffered until a whole token (header, block, end mark) is there, in the pooled
    /// <see cref="Lz4StreamInput"/>. A block whose block maximum fits in the caller's buffer is decoded straight into
    /// it; other blocks are decoded into the pooled <see cref="Lz4HistoryWindow"/> and copied out as the caller reads.
    /// Linked frames keep their last 64 KiB of output in that window as the prefix of the next block decoded there
    /// (output decoded straight into the caller's buffer is appended to it when the step ends: SaveHistory).
    /// <para>
    /// Read-ahead (frames with independent blocks, when the options' parallelism allows more than one thread): when
    /// the next block is due and the input buffer already holds several complete blocks, they are decoded at once on
    /// the calling thread and helper threads (<see cref="Lz4FrameStreamReadAheadJob"/>): as many as fit whole in the
    /// caller's buffer straight into it, and up to the degree of parallelism more into pooled windows, one block each,
    /// which later reads serve first (one more when it would be the last complete block buffered, rather than leave it
    /// to be decoded alone). The windows are a ring of the degree plus one (<see cref="Lz4ReadAheadRing"/>), and
    /// helpers get the ones the caller read longest ago. It goes ahead only when those blocks' block maximums add up to the options'
    /// minimum parallel length. The inner stream is never read for read-ahead: it is read, as without read-ahead, only
    /// while the token the caller's read needs is incomplete; with read-ahead each such read asks for the whole input
    /// buffer past the buffered bytes, and the buffer holds the degree of parallelism in block maximums. A block that
    /// fails is not kept: the sequential code decodes it again, and throws, when the reads reach it.
    /// </para>
    /// </remarks>
    internal sealed partial class Lz4FrameStreamReader : IDisposable
    {
        private readonly bool _verify;

        // Read-ahead: its degree (1: off) and the least output of the blocks decoded at once.
        private readonly int _degree;
        private readonly int _minimumParallelLength;

        private readonly Lz4StreamInput _in;
        private readonly Lz4HistoryWindow _history = new();
        private readonly Lz4ReadAheadRing _ahead;

        // Decoded output not yet read: _pendingBuffer[_pendingStart.._pendingEnd), in the history window or a read-ahead window.
        private byte[]? _pendingBuffer;
        private int _pendingStart;
        private int _pendingEnd;

        // Where, in the caller's buffer of the current call, output decoded straight into it starts; -1 when none.
        private int _directStart = -1;

        private bool _inFrame;
        private bool _finished;
        private Lz4FrameDescriptor _frame;
        private long _frameStart;
        private int _blockIndex;
        private long _frameOutput;
        private bool _hashContent;
        private XXH32.State _contentHash;
        private long _skipRemaining;
        private long _skipFrameStart;
        private uint _skipSize;
        private long _dictionaryFrame = -1;
        private uint? _dictionaryId;
        private ExceptionDispatchInfo? _fault;

        public Lz4FrameStreamReader(Stream stream, Lz4FrameDecoderOptions options)
        {
            _verify = options.VerifyChecksums;
            // A batch uses at most this many threads, so more windows than that would not be decoded at once.
            _degree = Math.Min(options.Parallelism.MaxDegreeOfParallelism, Lz4ParallelTiming.MaxWorkItemsPerCall + 1);
            _minimumParallelLength = options.Parallelism.MinimumLength;
            _in = new Lz4StreamInput(stream);
            _ahead = new Lz4ReadAheadRing(_degree);
        }

        /// <summary>
        /// A read buffer this size would take the current frame's blocks whole: its block maximum when the reader
        /// decodes on the calling thread alone, 0 outside a frame or with read-ahead, whose helpers do better in the
        /// ring of windows than in a buffer the caller has just read (docs/streams.md).
        /// </summary>
        public int WholeBlocksReadSize => _inFrame && !ReadsAhead ? _frame.BlockMaximumSize : 0;

        /// <summary>Decoded bytes waiting in the windows: a read of exactly this many ends where the next block starts.</summary>
        public long BufferedOutput => _pendingEnd - _pendingStart + _ahead.Buffered;

        /// <summary>Decodes into <paramref name="buffer"/>; 0 only at the end of the last frame (or for an empty buffer).</summary>
        public int Read(Span<byte> buffer)
        {
            if (buffer.IsEmpty)
                return 0;
            while (true)
            {
                int written = Step(buffer, out int need);
                if (written > 0 || need == Lz4StreamNeed.None)
                    return written;
                _in.Fill(need, FillRoom(need));
            }
        }

        /// <summary>The asynchronous <see cref="Read"/>.</summary>
        public ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken)
        {
            if (cancellationToken.IsCancellationRequested)
                return new ValueTask<int>(Task.FromCanceled<int>(cancellationToken));
            if (buffer.IsEmpty)
                return new ValueTask<int>(0);
            int written;
            int need;
            try
            {
                written = Step(buffer.Span, out need);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                return new ValueTask<int>(Task.FromException<int>(e));
            }
            if (written > 0 || need == Lz4StreamNeed.None)
                return new ValueTask<int>(written);
            return ReadSlowAsync(buffer, need, cancellationToken);
        }

        private async ValueTask<int> ReadSlowAsync(Memory<byte> buffer, int need, CancellationToken cancellationToken)
        {
            while (true)
            {
                await _in.FillAsync(need, FillRoom(need), cancellationToken).ConfigureAwait(false);
                int written = Step(buffer.Span, out need);
                if (written > 0 || need == Lz4StreamNeed.None)
                    return written;
            }
        }

        /// <summary>Returns pooled memory.</summary>
        public void Dispose()
        {
            _in.Dispose();
            _history.Dispose();
            _pendingBuffer = null;
            _ahead.Dispose();
        }

        /// <summary>
        /// Decodes what the buffered input allows into <paramref name="destination"/>. Returns the bytes written; when
        /// that is 0, <paramref name="need"/> is how many buffered bytes the next token needs (0: the end was reached).
        /// </summary>
        private int Step(Span<byte> destination, out int need)
        {
            if (_fault != null)
                _fault.Throw();
            int written = 0;
            need = Lz4StreamNeed.None;
            try
            {
                while (true)
                {
                    if (_pendingEnd > _pendingStart)
                    {
                        int n = Math.Min(_pendingEnd - _pendingStart, destination.Length - written);
                        _pendingBuffer.AsSpan(_pendingStart, n).CopyTo(destination.Slice(written));
                        _pendingStart += n;
                        written += n;
                    }
                    if (written == destination.Length || _finished)
                    {
                        EndEagerly();
                        break;
                    }
                    if (_ahead.HasNext)
                    {
                        _pendingBuffer = _ahead.Next(out _pendingEnd);
                        _pendingStart = 0;
                        continue;
                    }
                    need = _skipRemaining > 0 ? Skip() : _inFrame ? BlockOrEnd(destination, ref written) : FrameStart();
                    if (need != Lz4StreamNeed.None)
                    {
                        if (written > 0)
                            need = Lz4StreamNeed.None;
                        break;
                    }
                }
                SaveHistory(destination, written);
                return written;
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                _fault = ExceptionDispatchInfo.Capture(e);
                throw;
            }
        }

        /// <summary>
        /// Checks an end mark (content size and checksum) already buffered behind the output just delivered, so that a
        /// reader that stops at the end of its data (ArrowStreamReader at the end-of-stream marker) still has them checked.
        /// </summary>
        private void EndEagerly()
        {
            if (_inFrame && _pendingEnd == _pendingStart && !_ahead.HasNext && _skipRemaining == 0 && _in.Available >= Lz4FrameConstants.EndMarkLength
                && BinaryPrimitives.ReadUInt32LittleEndian(_in.Buffered) == 0
                && _in.Available >= Lz4FrameConstants.EndMarkLength + (_frame.HasContentChecksum ? Lz4FrameConstants.ChecksumLength : 0))
            {
                End(_in.Available);
            }
        }

        /// <summary>
        /// For a linked frame, appends the output decoded straight into the caller's buffer in this call (from
        /// <see cref="_directStart"/>) to the history kept in the window, so that the next block decoded elsewhere finds
        /// its prefix. Every step ends here, and so does a block about to decode into the window.
        /// </summary>
        private void SaveHistory(Span<byte> destination, int written)
        {
            int start = _directStart;
            if (start < 0)
                return;
            _directStart = -1;
            Debug.Assert(start <= written, "direct output starts within what this call wrote");
            if (_inFrame && _frame.IsLinked)
                _history.Append(destination.Slice(start, written - start), _frame.BlockMaximumSize);
        }

        /// <summary>
        /// The room a fill makes: what the next token needs, or with read-ahead the whole buffer (the buffered bytes move
        /// to its front), so that what the inner stream has for one read can complete the blocks after that token too.
        /// </summary>
        private int FillRoom(int need) => _inFrame && ReadsAhead ? Math.Max(need, _in.Array.Length) : need;
    }
}
