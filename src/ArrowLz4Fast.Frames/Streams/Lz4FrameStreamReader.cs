using System;
using System.Buffers;
using System.Buffers.Binary;
using System.IO;
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
    /// Compressed bytes are buffered until a whole token (header, block, end mark) is there, in one pooled input
    /// buffer. A block whose block maximum fits in the caller's buffer is decoded straight into it; other blocks are
    /// decoded into one pooled window and copied out as the caller reads. Linked frames keep their last 64 KiB of
    /// output at the front of the window as the prefix of the next block decoded there.
    /// <para>
    /// Read-ahead (frames with independent blocks, when the options' parallelism allows more than one thread): when
    /// the next block is due and the input buffer already holds several complete blocks, they are decoded at once on
    /// the calling thread and helper threads (<see cref="Lz4FrameStreamReadAhead"/>): as many as fit whole in the
    /// caller's buffer straight into it, and up to the degree of parallelism more into pooled windows, one block each,
    /// which later reads serve first (one more when it would be the last complete block buffered, rather than leave it
    /// to be decoded alone). The windows are a ring of the degree plus one, and helpers get the ones the caller read
    /// longest ago (see PickWindows). It goes ahead only when those blocks' block maximums add up to the options'
    /// minimum parallel length. The inner stream is never read for read-ahead: it is read, as without read-ahead, only
    /// while the token the caller's read needs is incomplete; with read-ahead each such read asks for the whole input
    /// buffer past the buffered bytes, and the buffer holds the degree of parallelism in block maximums. A block that
    /// fails is not kept: the sequential code decodes it again, and throws, when the reads reach it.
    /// </para>
    /// </remarks>
    internal sealed class Lz4FrameStreamReader : IDisposable
    {
        private const int InitialInputSize = 64 * 1024;

        // A linked window holds this much output after its history, so the history moves to the front only every few small blocks.
        private const int MinimumLinkedWindow = 512 * 1024;

        // Need: "drain the inner stream to its end" (bad magic number: the message counts every byte left).
        private const int DrainToEnd = -1;

        private readonly Stream _stream;
        private readonly bool _verify;

        // Read-ahead: its degree (1: off) and the least output of the blocks decoded at once.
        private readonly int _degree;
        private readonly int _minimumParallelLength;

        // Compressed input: _input[_inStart.._inEnd) is buffered, and _input[_inStart] is at _inOffset in the stream.
        private byte[] _input;
        private int _inStart;
        private int _inEnd;
        private long _inOffset;
        private long _drained;
        private bool _eof;

        // Decoded output not yet read: _pendingBuffer[_pendingStart.._pendingEnd), in _window or a read-ahead window.
        // A linked frame's history ends at _historyEnd in _window.
        private byte[]? _window;
        private byte[]? _pendingBuffer;
        private int _pendingStart;
        private int _pendingEnd;
        private int _historyEnd;
        private int _historyLength;

        // Read-ahead windows, the degree plus one, this reader's: _windowRing orders them by when the caller last read
        // them, most recent first (see PickWindows). _aheadWindows[_aheadNext.._aheadCount) hold blocks decoded ahead,
        // _aheadLengths bytes each, served after the pending output.
        private byte[]?[]? _windowRing;
        private byte[]?[]? _aheadWindows;
        private int[]? _aheadLengths;
        private int _aheadNext;
        private int _aheadCount;

        // Where, in the caller's buffer of the current call, output decoded straight into it starts; -1 when none.
        private int _directStart = -1;

        private bool _inFrame;
        private bool _sawToken;
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
            _stream = stream;
            _verify = options.VerifyChecksums;
            // A batch uses at most this many threads, so more windows than that would not be decoded at once.
            _degree = Math.Min(options.Parallelism.MaxDegreeOfParallelism, Lz4ParallelTiming.MaxWorkItemsPerCall + 1);
            _minimumParallelLength = options.Parallelism.MinimumLength;
            _input = ArrayPool<byte>.Shared.Rent(InitialInputSize);
        }

        /// <summary>
        /// A read buffer this size would take the current frame's blocks whole: its block maximum when the reader
        /// decodes on the calling thread alone, 0 outside a frame or with read-ahead, whose helpers do better in the
        /// ring of windows than in a buffer the caller has just read (docs/streams.md).
        /// </summary>
        public int WholeBlocksReadSize => _inFrame && !ReadsAhead ? _frame.BlockMaximumSize : 0;

        /// <summary>Decoded bytes waiting in the windows: a read of exactly this many ends where the next block starts.</summary>
        public long BufferedOutput
        {
            get
            {
                long bytes = _pendingEnd - _pendingStart;
                for (int i = _aheadNext; i < _aheadCount; i++)
                    bytes += _aheadLengths![i];
                return bytes;
            }
        }

        /// <summary>Decodes into <paramref name="buffer"/>; 0 only at the end of the last frame (or for an empty buffer).</summary>
        public int Read(Span<byte> buffer)
        {
            if (buffer.IsEmpty)
                return 0;
            while (true)
            {
                int written = Step(buffer, out int need);
                if (written > 0 || need == 0)
                    return written;
                Fill(need);
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
            if (written > 0 || need == 0)
                return new ValueTask<int>(written);
            return ReadSlowAsync(buffer, need, cancellationToken);
        }

        private async ValueTask<int> ReadSlowAsync(Memory<byte> buffer, int need, CancellationToken cancellationToken)
        {
            while (true)
            {
                await FillAsync(need, cancellationToken).ConfigureAwait(false);
                int written = Step(buffer.Span, out need);
                if (written > 0 || need == 0)
                    return written;
            }
        }

        /// <summary>Returns pooled memory.</summary>
        public void Dispose()
        {
            byte[] input = _input;
            _input = Array.Empty<byte>();
            if (input.Length != 0)
                ArrayPool<byte>.Shared.Return(input);
            byte[]? window = _window;
            _window = null;
            if (window != null)
                ArrayPool<byte>.Shared.Return(window);
            _pendingBuffer = null;
            if (_aheadWindows != null)
                Array.Clear(_aheadWindows, 0, _aheadWindows.Length);
            byte[]?[]? ring = _windowRing;
            if (ring != null)
            {
                for (int i = 0; i < ring.Length; i++)
                {
                    byte[]? ahead = ring[i];
                    ring[i] = null;
                    if (ahead != null)
                        ArrayPool<byte>.Shared.Return(ahead);
                }
            }
            _aheadNext = _aheadCount = 0;
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
            need = 0;
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
                    if (_aheadNext < _aheadCount)
                    {
                        NextAheadWindow();
                        continue;
                    }
                    need = _skipRemaining > 0 ? Skip() : _inFrame ? BlockOrEnd(destination, ref written) : FrameStart();
                    if (need != 0)
                    {
                        if (written > 0)
                            need = 0;
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
            if (_inFrame && _pendingEnd == _pendingStart && _aheadNext == _aheadCount && _skipRemaining == 0 && Available >= Lz4FrameConstants.EndMarkLength
                && BinaryPrimitives.ReadUInt32LittleEndian(Buffered) == 0
                && Available >= Lz4FrameConstants.EndMarkLength + (_frame.HasContentChecksum ? Lz4FrameConstants.ChecksumLength : 0))
            {
                End(Available);
            }
        }

        private int Available => _inEnd - _inStart;

        private ReadOnlySpan<byte> Buffered => new(_input, _inStart, _inEnd - _inStart);

        private void Consume(int count)
        {
            _inStart += count;
            _inOffset += count;
            _sawToken = true;
        }

        /// <summary>A frame or skippable frame starts here, or the input ends.</summary>
        private int FrameStart()
        {
            int available = Available;
            if (available < 4 && !_eof)
                return 4;
            if (available == 0)
            {
                if (!_sawToken)
                    Lz4FrameErrors.ThrowEmpty();
                _finished = true;
                if (_dictionaryFrame >= 0)
                    Lz4FrameErrors.ThrowDictionaryNotSupported(_dictionaryFrame, _dictionaryId);
                return 0;
            }
            if (available < 4)
                Lz4FrameErrors.ThrowShortTail(_inOffset, !_sawToken, available);

            uint magic = BinaryPrimitives.ReadUInt32LittleEndian(Buffered);
            if ((magic & 0xFFFFFFF0) == Lz4FrameConstants.SkippableMagicBase)
            {
                if (available < 8 && !_eof)
                    return 8;
                if (available < 8)
                    Lz4FrameErrors.ThrowTruncated(_inOffset, "the skippable frame header", 8, available);
                _skipSize = BinaryPrimitives.ReadUInt32LittleEndian(Buffered.Slice(4));
                _skipFrameStart = _inOffset;
                _skipRemaining = _skipSize;
                Consume(8);
                return 0;
            }
            if (magic != Lz4FrameConstants.FrameMagic)
            {
                if (!_eof)
                    return DrainToEnd;
                Lz4FrameErrors.ThrowBadMagic(_inOffset, magic, !_sawToken, available + _drained);
            }

            if (available < 5 && !_eof)
                return 5;
            int headerLength = Lz4FrameConstants.MinimumHeaderLength;
            if (available >= 5)
            {
                byte flg = _input[_inStart + 4];
                headerLength += ((flg & Lz4FrameConstants.FlagContentSize) != 0 ? 8 : 0) + ((flg & Lz4FrameConstants.FlagDictionaryId) != 0 ? 4 : 0);
            }
            if (available < headerLength && !_eof)
                return headerLength;

            Lz4FrameDescriptor frame = Lz4FrameDescriptor.Read(Buffered, 0, _inOffset);
            _frame = frame;
            _frameStart = _inOffset;
            _blockIndex = -1;
            _frameOutput = 0;
            _directStart = -1;
            _historyLength = 0;
            _historyEnd = 0;
            _inFrame = true;
            _aheadNext = _aheadCount = 0;
            _hashContent = _verify && frame.HasContentChecksum;
            if (_hashContent)
                XXH32.Reset(ref _contentHash);
            if (frame.HasDictionaryId && _dictionaryFrame < 0)
            {
                _dictionaryFrame = _inOffset;
                _dictionaryId = frame.DictionaryId;
            }
            Consume(frame.HeaderLength);
            if (ReadsAhead)
                EnsureInput(Math.Max(_degree * frame.BlockMaximumSize, _minimumParallelLength));
            return 0;
        }

        /// <summary>Skips the user data of a skippable frame.</summary>
        private int Skip()
        {
            int n = (int)Math.Min(Available, _skipRemaining);
            Consume(n);
            _skipRemaining -= n;
            if (_skipRemaining == 0)
                return 0;
            if (_eof)
                Lz4FrameErrors.ThrowSkippableTruncated(_skipFrameStart, _skipSize, 8L + _skipSize - _skipRemaining);
            return 1;
        }

        /// <summary>The next block of the current frame, or its end mark.</summary>
        private int BlockOrEnd(Span<byte> destination, ref int written)
        {
            int available = Available;
            if (available < Lz4FrameConstants.BlockHeaderLength && !_eof)
                return Lz4FrameConstants.BlockHeaderLength;
            if (available < Lz4FrameConstants.BlockHeaderLength)
                Lz4FrameErrors.ThrowBlockSizeTruncated(_inOffset, _blockIndex + 1, available);

            uint field = BinaryPrimitives.ReadUInt32LittleEndian(Buffered);
            if (field == 0)
                return End(available);

            int blockIndex = _blockIndex + 1;
            bool uncompressed = (field & Lz4FrameConstants.UncompressedBlockFlag) != 0;
            uint size = field & ~Lz4FrameConstants.UncompressedBlockFlag;
            int blockMaximum = _frame.BlockMaximumSize;
            if (size > (uint)blockMaximum)
                Lz4FrameErrors.ThrowBlockTooLarge(_inOffset, blockIndex, size, uncompressed, blockMaximum);
            int checksumLength = _frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int needed = Lz4FrameConstants.BlockHeaderLength + (int)size + checksumLength;
            if (available < needed && !_eof)
                return needed;
            if (available < needed)
                Lz4FrameErrors.ThrowBlockTruncated(_inOffset, blockIndex, needed, available);
            if (ReadsAhead && ReadAhead(destination, ref written))
                return 0;

            ReadOnlySpan<byte> data = Buffered.Slice(Lz4FrameConstants.BlockHeaderLength, (int)size);
            if (checksumLength != 0 && _verify)
            {
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(Buffered.Slice(Lz4FrameConstants.BlockHeaderLength + (int)size));
                uint actual = XXH32.DigestOf(data);
                if (expected != actual)
                    Lz4FrameErrors.ThrowBlockChecksum(_inOffset + Lz4FrameConstants.BlockHeaderLength + size, blockIndex, expected, actual, size);
            }

            if (_dictionaryFrame < 0)
                DecodeBlock(data, uncompressed, destination, ref written);
            _blockIndex = blockIndex;
            Consume(needed);
            return 0;
        }

        private void DecodeBlock(ReadOnlySpan<byte> data, bool uncompressed, Span<byte> destination, ref int written)
        {
            bool linked = _frame.IsLinked;
            int blockMaximum = _frame.BlockMaximumSize;
            int prefix = linked ? (int)Math.Min(_frameOutput, Lz4FrameConstants.WindowSize) : 0;
            int room = destination.Length - written;
            int decoded;

            // Straight into the caller's buffer when the block has its block maximum of room there (liblz4 gives every
            // block that much) and, for a linked block, its prefix is there too: what this call wrote is the latest output.
            if (uncompressed ? data.Length <= room : room >= blockMaximum && written >= prefix)
            {
                if (_directStart < 0)
                    _directStart = written;
                decoded = DecodeBlockAt(data, uncompressed, destination, written, prefix, blockMaximum);
                written += decoded;
                _frameOutput += decoded;
                return;
            }

            // Through the window: the history (linked) is made current first, then the block decodes after it.
            SaveHistory(destination, written);
            int start = PrepareWindow(linked, blockMaximum);
            byte[] window = _window!;
            decoded = DecodeBlockAt(data, uncompressed, window, start, prefix, blockMaximum);
            _frameOutput += decoded;
            _pendingBuffer = window;
            _pendingStart = start;
            _pendingEnd = start + decoded;
            if (linked)
            {
                _historyEnd = start + decoded;
                _historyLength = (int)Math.Min(_frameOutput, Lz4FrameConstants.WindowSize);
            }

            int n = Math.Min(decoded, destination.Length - written);
            window.AsSpan(start, n).CopyTo(destination.Slice(written));
            _pendingStart += n;
            written += n;
        }

        /// <summary>Read-ahead applies to the current frame: independent blocks, more than one thread, blocks decoded at all.</summary>
        private bool ReadsAhead => _degree > 1 && !_frame.IsLinked && _dictionaryFrame < 0;

        /// <summary>
        /// Decodes the complete blocks buffered from the next one on at once, when there are enough (see remarks):
        /// those that fit whole into <paramref name="destination"/> after <paramref name="written"/> straight there,
        /// up to the degree (or the degree plus one) more into windows. False when it did not, or kept no block: the next block is then
        /// decoded (or rejected) by the sequential code.
        /// </summary>
        private bool ReadAhead(Span<byte> destination, ref int written)
        {
            int blockMaximum = _frame.BlockMaximumSize;
            int checksumLength = _frame.HasBlockChecksum ? Lz4FrameConstants.ChecksumLength : 0;
            int direct = (destination.Length - written) / blockMaximum;
            int limit = Math.Min(Math.Max(direct, _degree), Lz4ParallelJob.MaximumBlocks - 1);
            ReadOnlySpan<byte> input = _input.AsSpan(0, _inEnd);
            int position = _inStart;
            int count = 0;
            while (count < limit && Lz4ParallelDecoder.TryNextBlock(input, position, blockMaximum, checksumLength, out int next))
            {
                count++;
                position = next;
            }
            // A block that would be left alone in the buffered input (the one after it incomplete, or the end mark) joins
            // the batch: by itself it would be decoded on the caller alone. The ring has the window for it.
            if (count == limit && Lz4ParallelDecoder.TryNextBlock(input, position, blockMaximum, checksumLength, out int last)
                && !Lz4ParallelDecoder.TryNextBlock(input, last, blockMaximum, checksumLength, out _))
            {
                count++;
            }
            if (count < 2 || count * (long)blockMaximum < _minimumParallelLength)
                return false;
            direct = Math.Min(direct, count);

            // Windows for the blocks beyond the caller's buffer: at most the degree plus one of them (count <= degree + 1 when any).
            byte[]?[] windows = _aheadWindows ??= new byte[]?[_degree + 1];
            int[] lengths = _aheadLengths ??= new int[_degree + 1];
            int ahead = count - direct;
            PickWindows(windows, ahead, direct > 0, blockMaximum);

            int kept = Lz4FrameStreamReadAhead.Decode(
                _input, _inStart, count, direct, destination.Slice(written), windows, lengths, blockMaximum, checksumLength,
                _verify, _hashContent, ref _contentHash, _degree, out int directWritten, out int end);
            if (kept == 0)
                return false;
            long decoded = directWritten;
            int keptAhead = Math.Max(0, kept - direct);
            for (int i = 0; i < keptAhead; i++)
                decoded += lengths[i];
            written += directWritten;
            _frameOutput += decoded;
            _blockIndex += kept;
            _aheadNext = 0;
            _aheadCount = keptAhead;
            WillRead(windows, keptAhead);
            Consume(end - _inStart);
            return true;
        }

        /// <summary>
        /// Fills <paramref name="windows"/>[0..<paramref name="ahead"/>) from the ring for a batch. A helper thread that
        /// decodes into memory the caller has just read waits for the caller's core to give up those cache lines: on the
        /// project's VM a pair of 4 MiB blocks then takes as long as the two in sequence (docs/streams.md). So helpers get
        /// the windows read longest ago, and the caller, which claims the first block, the one it read last, unless the
        /// first block goes to its own buffer.
        /// </summary>
        private void PickWindows(byte[]?[] windows, int ahead, bool callerTakesDirect, int blockMaximum)
        {
            byte[]?[] ring = _windowRing ??= new byte[]?[_degree + 1];
            int oldest = ring.Length - 1;
            for (int i = 0; i < ahead; i++)
            {
                int slot = i == 0 && !callerTakesDirect ? 0 : oldest--;
                byte[]? window = ring[slot];
                if (window == null || window.Length < blockMaximum)
                {
                    if (window != null)
                        ArrayPool<byte>.Shared.Return(window);
                    ring[slot] = null;
                    window = ring[slot] = ArrayPool<byte>.Shared.Rent(blockMaximum);
                }
                windows[i] = window;
            }
        }

        /// <summary>Reorders the ring for windows [0..<paramref name="count"/>) of a batch, which the caller reads in that order next.</summary>
        private void WillRead(byte[]?[] windows, int count)
        {
            byte[]?[] ring = _windowRing!;
            // Move the windows read first to the front; the batch's last window, read last, ends up most recent of all.
            for (int i = 0; i < count; i++)
            {
                byte[]? window = windows[i];
                int at = Array.IndexOf(ring, window);
                Array.Copy(ring, 0, ring, 1, at);
                ring[0] = window;
            }
        }

        /// <summary>Makes the next read-ahead window the pending output.</summary>
        private void NextAheadWindow()
        {
            int i = _aheadNext++;
            _pendingBuffer = _aheadWindows![i];
            _pendingStart = 0;
            _pendingEnd = _aheadLengths![i];
        }

        /// <summary>Trades the input buffer for one of at least <paramref name="size"/> bytes, keeping what is buffered.</summary>
        private void EnsureInput(int size)
        {
            if (_input.Length < size)
                TradeInput(size);
        }

        /// <summary>Moves the buffered bytes to the front of a pooled buffer of at least <paramref name="size"/> bytes.</summary>
        private void TradeInput(int size)
        {
            int available = Available;
            byte[] larger = ArrayPool<byte>.Shared.Rent(size);
            Buffer.BlockCopy(_input, _inStart, larger, 0, available);
            ArrayPool<byte>.Shared.Return(_input);
            _input = larger;
            _inStart = 0;
            _inEnd = available;
        }

        /// <summary>
        /// Decodes (or copies, if stored uncompressed) one block to <paramref name="at"/> in <paramref name="output"/>,
        /// whose <paramref name="prefix"/> bytes before it are a linked block's history, and hashes what it wrote.
        /// </summary>
        private int DecodeBlockAt(ReadOnlySpan<byte> data, bool uncompressed, Span<byte> output, int at, int prefix, int blockMaximum)
        {
            int decoded;
            if (uncompressed)
            {
                data.CopyTo(output.Slice(at));
                decoded = data.Length;
            }
            else
            {
                decoded = Lz4BlockDecoder.Decode(data, output.Slice(at - prefix, prefix + blockMaximum), prefix);
                if (decoded < 0)
                    throw Lz4FrameErrors.CorruptBlock(_inOffset, _blockIndex + 1, data.Length, prefix, blockMaximum);
            }
            if (_hashContent)
                XXH32.Update(ref _contentHash, output.Slice(at, decoded));
            return decoded;
        }

        /// <summary>
        /// Makes the window big enough for a block of this frame and returns where the block goes: 0 for an independent
        /// block, just after the history for a linked one (the history moved to the front when the block would not fit).
        /// </summary>
        private int PrepareWindow(bool linked, int blockMaximum)
        {
            byte[] window = EnsureWindow(linked ? LinkedWindowSize(blockMaximum) : blockMaximum);
            if (!linked)
                return 0;
            if (_historyEnd + blockMaximum > window.Length)
            {
                Buffer.BlockCopy(window, _historyEnd - _historyLength, window, 0, _historyLength);
                _historyEnd = _historyLength;
            }
            return _historyEnd;
        }

        private static int LinkedWindowSize(int blockMaximum) => Math.Max(Lz4FrameConstants.WindowSize + blockMaximum, MinimumLinkedWindow);

        /// <summary>The window, traded for a larger one (with the history) when it is smaller than <paramref name="size"/>.</summary>
        private byte[] EnsureWindow(int size)
        {
            byte[]? window = _window;
            if (window != null && window.Length >= size)
                return window;
            byte[] larger = ArrayPool<byte>.Shared.Rent(size);
            if (window != null)
            {
                window.AsSpan(_historyEnd - _historyLength, _historyLength).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(window);
            }
            else
            {
                _historyLength = 0;
            }
            _historyEnd = _historyLength;
            _window = larger;
            return larger;
        }

        /// <summary>
        /// For a linked frame, appends the output decoded straight into the caller's buffer in this call to the
        /// history kept in the window, so that the next block decoded elsewhere finds its prefix.
        /// </summary>
        private void SaveHistory(Span<byte> destination, int written)
        {
            int start = _directStart;
            if (start < 0)
                return;
            _directStart = -1;
            if (!_inFrame || !_frame.IsLinked)
                return;
            int count = written - start;
            int window = Lz4FrameConstants.WindowSize;
            byte[] buffer = EnsureWindow(LinkedWindowSize(_frame.BlockMaximumSize));
            if (count >= window)
            {
                destination.Slice(written - window, window).CopyTo(buffer);
                _historyEnd = window;
                _historyLength = window;
                return;
            }
            int keep = Math.Min(_historyLength, window - count);
            Buffer.BlockCopy(buffer, _historyEnd - keep, buffer, 0, keep);
            destination.Slice(start, count).CopyTo(buffer.AsSpan(keep));
            _historyEnd = keep + count;
            _historyLength = keep + count;
        }

        /// <summary>The end mark, the content checksum after it, and the content size check.</summary>
        private int End(int available)
        {
            int needed = Lz4FrameConstants.EndMarkLength + (_frame.HasContentChecksum ? Lz4FrameConstants.ChecksumLength : 0);
            if (available < needed && !_eof)
                return needed;
            if (available < needed)
                Lz4FrameErrors.ThrowTruncated(_inOffset, "the end mark and content checksum", needed, available);
            if (_dictionaryFrame < 0)
            {
                if (_frame.ContentSize is ulong size && size != 0 && size != (ulong)_frameOutput)
                    Lz4FrameErrors.ThrowContentSize(_frameStart + 6, size, _frameOutput);
                if (_hashContent)
                {
                    uint expected = BinaryPrimitives.ReadUInt32LittleEndian(Buffered.Slice(Lz4FrameConstants.EndMarkLength));
                    uint actual = XXH32.Digest(in _contentHash);
                    if (actual != expected)
                        Lz4FrameErrors.ThrowContentChecksum(_inOffset + Lz4FrameConstants.EndMarkLength, expected, actual, _frameOutput);
                }
            }
            _inFrame = false;
            Consume(needed);
            return 0;
        }

        /// <summary>Makes room for <paramref name="need"/> buffered bytes: compacts, or trades the buffer for a larger one.</summary>
        private void MakeRoom(int need)
        {
            if (_inStart + need <= _input.Length)
                return;
            if (need > _input.Length)
            {
                TradeInput(need);
                return;
            }
            int available = Available;
            Buffer.BlockCopy(_input, _inStart, _input, 0, available);
            _inStart = 0;
            _inEnd = available;
        }

        /// <summary>
        /// The room a fill makes: what the next token needs, or with read-ahead the whole buffer (the buffered bytes move
        /// to its front), so that what the inner stream has for one read can complete the blocks after that token too.
        /// </summary>
        private int FillRoom(int need) => _inFrame && ReadsAhead ? Math.Max(need, _input.Length) : need;

        private void Fill(int need)
        {
            if (need == DrainToEnd)
            {
                MakeRoom(_input.Length);
                while (!_eof)
                {
                    int free = _input.Length - _inEnd;
                    int n = free > 0 ? _stream.Read(_input, _inEnd, free) : _stream.Read(_input, 4, _input.Length - 4);
                    Drained(n, free);
                }
                return;
            }
            if (Available == 0)
                _inStart = _inEnd = 0;
            MakeRoom(FillRoom(need));
            while (Available < need)
            {
                int n = _stream.Read(_input, _inEnd, _input.Length - _inEnd);
                if (n <= 0)
                {
                    _eof = true;
                    return;
                }
                _inEnd += n;
            }
        }

        private async ValueTask FillAsync(int need, CancellationToken cancellationToken)
        {
            if (need == DrainToEnd)
            {
                MakeRoom(_input.Length);
                while (!_eof)
                {
                    int free = _input.Length - _inEnd;
                    int n = free > 0
                        ? await ReadInnerAsync(_inEnd, free, cancellationToken).ConfigureAwait(false)
                        : await ReadInnerAsync(4, _input.Length - 4, cancellationToken).ConfigureAwait(false);
                    Drained(n, free);
                }
                return;
            }
            if (Available == 0)
                _inStart = _inEnd = 0;
            MakeRoom(FillRoom(need));
            while (Available < need)
            {
                int n = await ReadInnerAsync(_inEnd, _input.Length - _inEnd, cancellationToken).ConfigureAwait(false);
                if (n <= 0)
                {
                    _eof = true;
                    return;
                }
                _inEnd += n;
            }
        }

        /// <summary>Counts bytes read only to learn how many follow a bad magic number; once the buffer is full, they are read over it, past the magic number.</summary>
        private void Drained(int n, int free)
        {
            if (n <= 0)
                _eof = true;
            else if (free > 0)
                _inEnd += n;
            else
                _drained += n;
        }

        private ValueTask<int> ReadInnerAsync(int offset, int count, CancellationToken cancellationToken) =>
#if NETCOREAPP2_1_OR_GREATER || NETSTANDARD2_1_OR_GREATER
            _stream.ReadAsync(_input.AsMemory(offset, count), cancellationToken);
#else
            new(_stream.ReadAsync(_input, offset, count, cancellationToken));
#endif
    }
}
