using System;
using System.Buffers;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// A write-only stream that takes uncompressed Arrow IPC (what <c>ArrowStreamWriter</c> or <c>ArrowFileWriter</c>
    /// write with no codec in their <c>IpcOptions</c>) and writes it LZ4_FRAME-compressed to another stream: the mirror of
    /// <see cref="IpcDecompressingStream"/>. Every buffer of each record and dictionary batch is compressed at once on
    /// the package's helper threads, largest first, while Arrow's writer serializes the next batch.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Each buffer becomes its 8-byte uncompressed length and one LZ4 frame, the same bytes <see cref="Lz4FastCodec"/>
    /// writes with the same options at any thread count; a buffer whose frame does not save
    /// <c>minSpaceSavings</c> goes raw behind the length -1, as Arrow C++'s <c>min_space_savings</c> does. The
    /// metadata is rewritten for the compressed body (a BodyCompression, new buffer offsets and lengths, bodyLength);
    /// schemas, batches compressed already (any codec) and the end-of-stream marker pass through as they are. An IPC
    /// file (it starts with <c>ARROW1</c>) is written as a file: its footer's blocks are rewritten to the compressed
    /// messages' places, so readers keep random access to every batch.
    /// </para>
    /// <para>
    /// <b>Pipeline.</b> A <c>Write</c> that completes a batch message starts its compression on the helpers and
    /// returns; the next complete message (or <see cref="Flush"/>, <see cref="FlushAsync(CancellationToken)"/> or
    /// <c>Dispose</c>) joins it, the calling thread taking what is left, then starts its own and writes the previous one
    /// to the output. So at most three messages are held in pooled memory: the one being written to the output, the one
    /// compressing, and the one Arrow's writer is filling. Batches under the parallel minimum, at two threads or more,
    /// are compressed instead on one helper while the writer serializes the next, through a ring of eight: then at most
    /// ten messages are held (the ring's, one the calling thread compresses when the ring is full, and the one being
    /// filled), and a <c>Write</c> may return before a batch it completed is written to the output; the output is
    /// written only from the calling thread, in order. One <see cref="Lz4FastOptions.MaxDegreeOfParallelism"/> bounds the
    /// threads that compress, the calling thread included.
    /// </para>
    /// <para>
    /// <b>Errors.</b> Bytes that are not well-formed IPC throw <see cref="InvalidDataException"/> naming the input offset
    /// (the inner <see cref="Lz4FrameException"/> carries it), from the write that completes the faulty part (a schema
    /// Arrow .NET cannot read, <see cref="NotSupportedException"/>, as <see cref="IpcDecompressingStream"/> says), or, for
    /// a batch in the ring whose metadata cannot be rewritten, from the next write, flush or dispose; a message is written
    /// to the output whole or not at all, and once the stream has failed every later call throws. An input
    /// that ends inside a message, or a file whose footer did not arrive, fails at <c>Dispose</c>.
    /// </para>
    /// <para>
    /// <see cref="CanSeek"/> is <see langword="true"/> only because <c>ArrowFileWriter</c> asks for it to read
    /// <see cref="Position"/>: the position is the count of uncompressed bytes written, and seeking anywhere else throws.
    /// </para>
    /// </remarks>
    public sealed partial class IpcCompressingStream : Stream
    {
        private readonly Stream _output;
        private readonly bool _leaveOpen;
        private readonly Lz4FrameEncoderOptions _encoder;
        private readonly double _minSpaceSavings;
        private bool _disposed;
        private Exception? _failure;

        /// <summary>Creates a stream that writes compressed IPC to <paramref name="output"/>.</summary>
        /// <param name="output">Where the compressed IPC stream or file goes.</param>
        /// <param name="options">
        /// Block size, level (<see cref="Lz4FastOptions.CompressionLevel"/>, HC levels included), checksums and
        /// parallelism; <see langword="null"/> for the defaults.
        /// </param>
        /// <param name="leaveOpen">Leave <paramref name="output"/> open when this stream is disposed.</param>
        /// <param name="minSpaceSavings">
        /// 0 (default) to 1: a buffer whose frame saves less than this share of its length (1 - frame / buffer) is
        /// written raw behind the length -1; 0 keeps every frame no longer than its buffer, as Arrow .NET's writer does.
        /// </param>
        /// <exception cref="ArgumentNullException"><paramref name="output"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="output"/> cannot be written.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="minSpaceSavings"/> is not 0 to 1.</exception>
        public IpcCompressingStream(Stream output, Lz4FastOptions? options = null, bool leaveOpen = false, double minSpaceSavings = 0)
        {
            _output = output ?? throw new ArgumentNullException(nameof(output));
            if (!output.CanWrite)
                throw new ArgumentException("The output stream must be writable.", nameof(output));
            if (!(minSpaceSavings >= 0 && minSpaceSavings <= 1))
                throw new ArgumentOutOfRangeException(nameof(minSpaceSavings), minSpaceSavings, "The minimum space savings must be 0 to 1.");
            _leaveOpen = leaveOpen;
            _encoder = (options ?? new Lz4FastOptions()).EncoderOptions(null);
            _minSpaceSavings = minSpaceSavings;
            _message = ArrayPool<byte>.Shared.Rent(InitialMessageLength);
        }

        /// <summary>The stream the compressed IPC goes to.</summary>
        public Stream BaseStream => _output;

        /// <inheritdoc/>
        public override bool CanRead => false;

        /// <summary><see langword="true"/> until disposed, so that <c>ArrowFileWriter</c> accepts the stream; only <see cref="Position"/> is read.</summary>
        public override bool CanSeek => !_disposed;

        /// <inheritdoc/>
        public override bool CanWrite => !_disposed;

        /// <summary>The count of uncompressed bytes written so far.</summary>
        public override long Length => _inputPosition;

        /// <summary>The count of uncompressed bytes written so far (what <c>ArrowFileWriter</c> records in its footer, rewritten here); it cannot be set elsewhere.</summary>
        /// <exception cref="NotSupportedException">Set to another value.</exception>
        public override long Position
        {
            get => _inputPosition;
            set => Seek(value, SeekOrigin.Begin);
        }

        /// <summary>The count of compressed bytes written to the output so far.</summary>
        public long BytesWritten => _outputPosition;

        /// <summary>Only to where the stream is.</summary>
        /// <exception cref="NotSupportedException">Any other place.</exception>
        public override long Seek(long offset, SeekOrigin origin)
        {
            long target = origin switch
            {
                SeekOrigin.Begin => offset,
                SeekOrigin.Current => _inputPosition + offset,
                _ => _inputPosition + offset,
            };
            if (target != _inputPosition)
                throw new NotSupportedException("An IpcCompressingStream is written front to back; it can only report its position.");
            return target;
        }

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override void SetLength(long value) => throw new NotSupportedException();

        /// <summary>Not supported.</summary>
        /// <exception cref="NotSupportedException">Always.</exception>
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        /// <summary>Takes uncompressed IPC bytes; a write that completes a batch starts its compression and returns.</summary>
        /// <param name="buffer">The bytes.</param>
        /// <param name="offset">Where they start in <paramref name="buffer"/>.</param>
        /// <param name="count">How many.</param>
        /// <exception cref="InvalidDataException">The bytes are not well-formed Arrow IPC; the inner <see cref="Lz4FrameException"/> has the offset.</exception>
        /// <exception cref="NotSupportedException">A schema Arrow .NET cannot read (a field with no name, an empty struct).</exception>
        public override void Write(byte[] buffer, int offset, int count)
        {
            ValidateBuffer(buffer, offset, count);
            WriteCore(new ReadOnlySpan<byte>(buffer, offset, count));
        }

        /// <summary>Takes uncompressed IPC bytes; the compressed messages they complete are written asynchronously.</summary>
        /// <param name="buffer">The bytes.</param>
        /// <param name="offset">Where they start in <paramref name="buffer"/>.</param>
        /// <param name="count">How many.</param>
        /// <param name="cancellationToken">Cancels the output's writes.</param>
        /// <returns>The write.</returns>
        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            ValidateBuffer(buffer, offset, count);
            return WriteAsyncCore(new ReadOnlyMemory<byte>(buffer, offset, count), cancellationToken).AsTask();
        }

        /// <summary>Compresses and writes everything complete (the batch compressing included), then flushes the output.</summary>
        public override void Flush()
        {
            ThrowIfUnusable();
            Guard(() =>
            {
                Drain();
                WritePendingOutput();
            });
            _output.Flush();
        }

        /// <summary>Compresses and writes everything complete (the batch compressing included), then flushes the output.</summary>
        /// <param name="cancellationToken">Cancels the output's writes.</param>
        /// <returns>The flush.</returns>
        public override async Task FlushAsync(CancellationToken cancellationToken)
        {
            ThrowIfUnusable();
            Guard(Drain);
            await WritePendingOutputAsync(cancellationToken).ConfigureAwait(false);
            await _output.FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        /// <inheritdoc/>
        protected override void Dispose(bool disposing)
        {
            if (_disposed)
            {
                base.Dispose(disposing);
                return;
            }
            try
            {
                if (disposing && _failure is null)
                {
                    Guard(() =>
                    {
                        Drain();
                        WritePendingOutput();
                        CheckComplete();
                    });
                    _output.Flush();
                }
            }
            finally
            {
                _disposed = true;
                Release();
                if (disposing && !_leaveOpen)
                    _output.Dispose();
                base.Dispose(disposing);
            }
        }

        private void WriteCore(ReadOnlySpan<byte> bytes)
        {
            ThrowIfUnusable();
            while (true)
            {
                int taken = 0;
                try
                {
                    taken = Accept(bytes);
                }
                catch (Exception e)
                {
                    Fail(e);
                    throw;
                }
                WritePendingOutput();
                bytes = bytes.Slice(taken);
                if (bytes.IsEmpty)
                    return;
            }
        }

        private async ValueTask WriteAsyncCore(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken)
        {
            ThrowIfUnusable();
            while (true)
            {
                int taken = 0;
                try
                {
                    taken = Accept(bytes.Span);
                }
                catch (Exception e)
                {
                    Fail(e);
                    throw;
                }
                await WritePendingOutputAsync(cancellationToken).ConfigureAwait(false);
                bytes = bytes.Slice(taken);
                if (bytes.IsEmpty)
                    return;
            }
        }

        /// <summary>Runs <paramref name="work"/>; a failure leaves the stream failed (and its helpers stopped) before it propagates.</summary>
        private void Guard(Action work)
        {
            try
            {
                work();
            }
            catch (Exception e)
            {
                Fail(e);
                throw;
            }
        }

        private void Fail(Exception e)
        {
            _failure ??= e;
            AbandonPending();
        }

        private void ThrowIfUnusable()
        {
            if (_disposed)
                throw new ObjectDisposedException(nameof(IpcCompressingStream));
            if (_failure is not null)
                throw new InvalidOperationException("The IPC compressing stream failed earlier; nothing more is written to its output.", _failure);
        }

        private static void ValidateBuffer(byte[] buffer, int offset, int count)
        {
            if (buffer is null)
                throw new ArgumentNullException(nameof(buffer));
            if (offset < 0 || count < 0 || offset > buffer.Length - count)
                throw new ArgumentOutOfRangeException(nameof(count), "The range is outside the buffer.");
        }
    }
}
