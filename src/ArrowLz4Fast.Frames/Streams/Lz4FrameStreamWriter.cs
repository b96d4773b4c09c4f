using System;
using System.Buffers;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The encoding half of <see cref="Lz4FrameStream"/>: cuts the content into blocks and writes one frame, the bytes
    /// <see cref="Lz4FrameEncoder.TryEncode"/> writes for the whole content whatever the write sizes (unless
    /// <see cref="Flush"/> ends a block early). Content is buffered in one pooled block; a write that covers whole
    /// blocks is compressed straight from the caller's memory, several blocks at a time by the span encoder (so in
    /// parallel when the options allow it). See docs/streams-encode.md.
    /// </summary>
    internal sealed class Lz4FrameStreamWriter : IDisposable
    {
        // A parallel run of whole blocks is at most this long (or the degree of parallelism in blocks, up to
        // MaximumRunBlocks): it bounds the pooled output buffer, not the speed.
        private const int ParallelRunBytes = 8 * 1024 * 1024;
        private const int MaximumRunBlocks = 16;

        private readonly Stream _stream;
        private readonly Lz4FrameEncoderOptions _options;

        // The options of a run of whole blocks: the stream keeps the content checksum itself, across runs.
        private readonly Lz4FrameEncoderOptions _runOptions;
        private readonly int _blockSize;
        private byte[]? _input;
        private int _buffered;
        private byte[]? _output;
        private int _runBlocks;
        private int _pendingOffset;
        private int _pendingLength;
        private bool _headerWritten;

        // Once a block is out, every later block is a full block maximum; before, the content may still fit in one
        // block, which the span encoder cuts into pieces (Lz4FrameEncoder.BlockStride), so nothing is written yet.
        private bool _strideFixed;
        private bool _finished;
        private bool _faulted;
        private XXH32.State _contentHash;

        public Lz4FrameStreamWriter(Stream stream, Lz4FrameEncoderOptions options)
        {
            if (options.ContentSize)
            {
                throw new NotSupportedException(
                    "Lz4FrameStream cannot write the content size field: the header goes out before the content is known. "
                    + "Use options without contentSize, or Lz4FrameEncoder.TryEncode for content held in memory.");
            }
            _stream = stream;
            _options = options;
            _runOptions = new Lz4FrameEncoderOptions(options.BlockSize, options.Level, contentChecksum: false, options.BlockChecksum, contentSize: false, options.Parallelism);
            _blockSize = options.BlockSize;
            if (options.ContentChecksum)
                XXH32.Reset(ref _contentHash);
        }

        /// <summary>Adds <paramref name="buffer"/> to the frame.</summary>
        public void Write(ReadOnlySpan<byte> buffer)
        {
            ThrowIfFaulted();
            while (!buffer.IsEmpty)
            {
                buffer = buffer.Slice(Step(buffer));
                if (_pendingLength != 0)
                    WritePending();
            }
        }

        /// <summary>The asynchronous <see cref="Write"/>; cancelled before it starts, it leaves the frame as it was.</summary>
        public ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken)
        {
            if (cancellationToken.IsCancellationRequested)
                return new ValueTask(Task.FromCanceled(cancellationToken));
            ThrowIfFaulted();
            while (!buffer.IsEmpty)
            {
                buffer = buffer.Slice(Step(buffer.Span));
                if (_pendingLength != 0)
                    return WriteAsyncCore(buffer, cancellationToken);
            }
            return default;
        }

        /// <summary>Ends the current block (as LZ4F's flush does) and flushes the inner stream.</summary>
        public void Flush()
        {
            ThrowIfFaulted();
            EndBlock();
            if (_pendingLength != 0)
                WritePending();
            _stream.Flush();
        }

        /// <summary>The asynchronous <see cref="Flush"/>.</summary>
        public async Task FlushAsync(CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            ThrowIfFaulted();
            EndBlock();
            if (_pendingLength != 0)
                await WritePendingAsync(cancellationToken).ConfigureAwait(false);
            await _stream.FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        /// <summary>Writes what is buffered, the end mark and the content checksum; only the first call does anything.</summary>
        /// <remarks>After a failed write to the inner stream the frame is incomplete, and nothing more is written.</remarks>
        public void Finish()
        {
            if (_finished || _faulted)
                return;
            _finished = true;
            End();
            WritePending();
        }

        /// <summary>The asynchronous <see cref="Finish"/>.</summary>
        public async ValueTask FinishAsync()
        {
            if (_finished || _faulted)
                return;
            _finished = true;
            End();
            await WritePendingAsync(CancellationToken.None).ConfigureAwait(false);
        }

        /// <summary>Returns pooled memory.</summary>
        public void Dispose()
        {
            if (_input != null)
                ArrayPool<byte>.Shared.Return(_input);
            if (_output != null)
                ArrayPool<byte>.Shared.Return(_output);
            _input = null;
            _output = null;
        }

        /// <summary>
        /// Takes what it can of <paramref name="source"/> (at least one byte, or it empties a full buffer) and leaves
        /// the frame bytes that are ready in the output buffer's pending range.
        /// </summary>
        /// <returns>The bytes of <paramref name="source"/> taken.</returns>
        private int Step(ReadOnlySpan<byte> source)
        {
            int blockSize = _blockSize;
            if (_buffered != 0 || source.Length < blockSize)
            {
                byte[] input = _input ??= ArrayPool<byte>.Shared.Rent(blockSize);
                int taken = Math.Min(blockSize - _buffered, source.Length);
                source.Slice(0, taken).CopyTo(input.AsSpan(_buffered));
                _buffered += taken;
                // A full block goes out once the content is known to be longer than one block.
                if (_buffered == blockSize && (taken < source.Length || _strideFixed))
                {
                    EncodeBlock(input.AsSpan(0, blockSize));
                    _buffered = 0;
                }
                return taken;
            }

            // Whole blocks straight from the caller's memory; while the content may still be one block, the last
            // whole block of the write waits in the buffer until more content shows it is not.
            int blocks = source.Length / blockSize;
            if (!_strideFixed && blocks * blockSize == source.Length)
                blocks--;
            if (blocks == 0)
            {
                byte[] input = _input ??= ArrayPool<byte>.Shared.Rent(blockSize);
                source.Slice(0, blockSize).CopyTo(input);
                _buffered = blockSize;
                return blockSize;
            }
            if (blocks >= 2 && _options.Parallelism.IsParallel)
                return EncodeRun(source, blocks);
            EncodeBlock(source.Slice(0, blockSize));
            return blockSize;
        }

        /// <summary>Compresses one block (after the header when it is not out yet) into the pending range.</summary>
        private void EncodeBlock(ReadOnlySpan<byte> block)
        {
            byte[] output = Output(parallel: false);
            int position = StartOutput(output);
            if (!Lz4FrameEncoder.EncodeBlocks(block, output, 0, _blockSize, ref position, ref _contentHash, _options))
                throw new InvalidOperationException("The output buffer is shorter than the worst case of one block.");
            _pendingLength = position;
            _strideFixed = true;
        }

        /// <summary>Compresses up to <see cref="_runBlocks"/> whole blocks of <paramref name="source"/> with the span encoder, in parallel.</summary>
        private int EncodeRun(ReadOnlySpan<byte> source, int blocks)
        {
            byte[] output = Output(parallel: true);
            int length = Math.Min(blocks, _runBlocks) * _blockSize;
            ReadOnlySpan<byte> run = source.Slice(0, length);
            if (!Lz4FrameEncoder.TryEncode(run, output, out int written, _runOptions))
                throw new InvalidOperationException("The output buffer is shorter than the worst case of a run of blocks.");
            if (_options.ContentChecksum)
                XXH32.Update(ref _contentHash, run);

            // The run's frame is a header (without the content checksum flag), the blocks and an end mark: the
            // blocks are what goes out, after this frame's own header if it is not out yet.
            int start = Lz4FrameConstants.MinimumHeaderLength;
            if (!_headerWritten)
            {
                WriteHeader(output);
                _headerWritten = true;
                start = 0;
            }
            _pendingOffset = start;
            _pendingLength = written - Lz4FrameConstants.EndMarkLength - start;
            _strideFixed = true;
            return length;
        }

        /// <summary>Ends the block in the buffer, or writes the header when nothing is out yet (for <see cref="Flush"/>).</summary>
        private void EndBlock()
        {
            if (_buffered != 0)
            {
                EncodeBlock(_input.AsSpan(0, _buffered));
                _buffered = 0;
            }
            else if (!_headerWritten)
            {
                _pendingLength = StartOutput(Output(parallel: false));
            }
        }

        /// <summary>Puts the rest of the frame in the pending range: the last block, the end mark and the content checksum.</summary>
        private void End()
        {
            byte[] output = Output(parallel: false);
            if (!_strideFixed)
            {
                // The whole content is in the buffer: the span encoder writes the whole frame.
                ReadOnlySpan<byte> content = _input.AsSpan(0, _buffered);
                if (!Lz4FrameEncoder.TryEncode(content, output, out int written, _options))
                    throw new InvalidOperationException("The output buffer is shorter than the worst case of one block's frame.");
                _pendingOffset = _headerWritten ? Lz4FrameConstants.MinimumHeaderLength : 0;
                _pendingLength = written - _pendingOffset;
                _headerWritten = true;
            }
            else
            {
                int position = 0;
                if (_buffered != 0
                    && !Lz4FrameEncoder.EncodeBlocks(_input.AsSpan(0, _buffered), output, 0, _blockSize, ref position, ref _contentHash, _options))
                {
                    throw new InvalidOperationException("The output buffer is shorter than the worst case of one block.");
                }
                if (!Lz4FrameEncoder.TryWriteEnd(output, position, _options, ref _contentHash, out int written))
                    throw new InvalidOperationException("The output buffer is shorter than the end of a frame.");
                _pendingOffset = 0;
                _pendingLength = written;
            }
            _buffered = 0;
        }

        /// <summary>Starts the pending range at 0, with the frame header when it is not out yet; returns where blocks go.</summary>
        private int StartOutput(byte[] output)
        {
            _pendingOffset = 0;
            if (_headerWritten)
                return 0;
            WriteHeader(output);
            _headerWritten = true;
            return Lz4FrameConstants.MinimumHeaderLength;
        }

        /// <summary>The frame header: the span encoder's header for empty content.</summary>
        private void WriteHeader(byte[] output)
        {
            Span<byte> frame = stackalloc byte[Lz4FrameConstants.MinimumHeaderLength + Lz4FrameConstants.EndMarkLength + Lz4FrameConstants.ChecksumLength];
            Lz4FrameEncoder.TryEncode(ReadOnlySpan<byte>.Empty, frame, out _, _options);
            frame.Slice(0, Lz4FrameConstants.MinimumHeaderLength).CopyTo(output);
        }

        /// <summary>
        /// The pooled output buffer: room for the header, one block (or the span encoder's pieces of one block) and
        /// the frame's end; for a parallel run, as many whole blocks as fit in it.
        /// </summary>
        private byte[] Output(bool parallel)
        {
            if (_output != null && (!parallel || _runBlocks != 0))
                return _output;
            int length;
            if (parallel)
            {
                int degree = _options.Parallelism.MaxDegreeOfParallelism;
                int blocks = Math.Max(2, Math.Max(ParallelRunBytes / _blockSize, Math.Min(degree, MaximumRunBlocks)));
                length = (int)Lz4FrameEncoder.GetMaxEncodedLength(blocks * _blockSize, _runOptions);
            }
            else
            {
                length = (int)Lz4FrameEncoder.GetMaxEncodedLength(_blockSize, _options);
            }
            length = Math.Max(length, (int)Lz4FrameEncoder.GetMaxEncodedLength(_blockSize, _options));
            if (_output != null)
                ArrayPool<byte>.Shared.Return(_output);
            _output = null;
            byte[] output = ArrayPool<byte>.Shared.Rent(length);
            _output = output;
            if (parallel)
            {
                // The pool rounds up: as many whole blocks as the buffer it gave holds.
                int blocks = 2;
                while (Lz4FrameEncoder.GetMaxEncodedLength((blocks + 1) * _blockSize, _runOptions) <= output.Length)
                    blocks++;
                _runBlocks = blocks;
            }
            return output;
        }

        private void WritePending()
        {
            try
            {
                _stream.Write(_output!, _pendingOffset, _pendingLength);
            }
            catch
            {
                _faulted = true;
                throw;
            }
            _pendingLength = 0;
        }

        private async ValueTask WritePendingAsync(CancellationToken cancellationToken)
        {
            try
            {
#if NETCOREAPP2_1_OR_GREATER
                await _stream.WriteAsync(_output.AsMemory(_pendingOffset, _pendingLength), cancellationToken).ConfigureAwait(false);
#else
                await _stream.WriteAsync(_output!, _pendingOffset, _pendingLength, cancellationToken).ConfigureAwait(false);
#endif
            }
            catch
            {
                _faulted = true;
                throw;
            }
            _pendingLength = 0;
        }

        private async ValueTask WriteAsyncCore(ReadOnlyMemory<byte> rest, CancellationToken cancellationToken)
        {
            await WritePendingAsync(cancellationToken).ConfigureAwait(false);
            while (!rest.IsEmpty)
            {
                rest = rest.Slice(Step(rest.Span));
                if (_pendingLength != 0)
                    await WritePendingAsync(cancellationToken).ConfigureAwait(false);
            }
        }

        private void ThrowIfFaulted()
        {
            if (_faulted)
                throw new InvalidOperationException("A write to the inner stream failed or was cancelled: the frame is incomplete and this stream cannot go on.");
        }
    }
}
