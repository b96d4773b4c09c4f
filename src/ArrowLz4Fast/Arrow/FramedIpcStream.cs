using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// What <see cref="Lz4FramedArrow"/> hands Arrow's reader: its <see cref="IpcDecompressingStream"/>, read as it is,
    /// with errors renamed for the two streams a caller could take an offset to be in. The IPC layer's offsets are in
    /// the decompressed stream it reads, the outer frame's in the compressed bytes the caller passed; both layers'
    /// messages say only "the input stream" or nothing.
    /// </summary>
    internal sealed class FramedIpcStream : Stream
    {
        private readonly IpcDecompressingStream _ipc;
        private readonly CountingReadStream _input;
        private long _inputRecorded;
        private long _messagesRecorded;

        /// <param name="ipc">The IPC stream Arrow reads.</param>
        /// <param name="input">The compressed input, counted as the frames are read from it (for the meter).</param>
        public FramedIpcStream(IpcDecompressingStream ipc, CountingReadStream input)
        {
            _ipc = ipc;
            _input = input;
        }

        public override bool CanRead => _ipc.CanRead;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override int Read(byte[] buffer, int offset, int count)
        {
            try
            {
                return Served(_ipc.Read(buffer, offset, count));
            }
            catch (Exception e) when (Renamed(e) is { } renamed)
            {
                throw renamed;
            }
        }

        public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            try
            {
#if NET
                return Served(await _ipc.ReadAsync(buffer.AsMemory(offset, count), cancellationToken).ConfigureAwait(false));
#else
                return Served(await _ipc.ReadAsync(buffer, offset, count, cancellationToken).ConfigureAwait(false));
#endif
            }
            catch (Exception e) when (Renamed(e) is { } renamed)
            {
                throw renamed;
            }
        }

#if NET
        public override int Read(Span<byte> buffer)
        {
            try
            {
                return Served(_ipc.Read(buffer));
            }
            catch (Exception e) when (Renamed(e) is { } renamed)
            {
                throw renamed;
            }
        }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            try
            {
                return Served(await _ipc.ReadAsync(buffer, cancellationToken).ConfigureAwait(false));
            }
            catch (Exception e) when (Renamed(e) is { } renamed)
            {
                throw renamed;
            }
        }
#endif

        protected override void Dispose(bool disposing)
        {
            if (disposing)
                _ipc.Dispose();
            base.Dispose(disposing);
        }

        /// <summary>Records what the framed path read and served since the last read: compressed bytes in, IPC bytes out, messages.</summary>
        private int Served(int read)
        {
            long input = _input.BytesRead;
            long messages = _ipc.MessagesRead;
            ArrowLz4FastMetrics.RecordStream(ArrowLz4FastMetrics.TagFramed, input - _inputRecorded, Math.Max(read, 0), messages - _messagesRecorded);
            _inputRecorded = input;
            _messagesRecorded = messages;
            return read;
        }

        /// <summary>The exception to throw instead of <paramref name="e"/>, its offset's stream named; null to let it go.</summary>
        internal static Exception? Renamed(Exception e)
        {
            if (OwnError.Of(e) is { Origin: OffsetOrigin.IpcInput } own)
            {
                if (own.Shape != OwnErrorShape.Invalid)
                    return IpcErrors.NotSupported(own, e, framed: true);
                if (e.InnerException is Lz4FrameException ipc)
                    return IpcErrors.Invalid(own, ipc.Kind, ipc.InnerException ?? e, framed: true);
                return null;
            }
            // Not the IPC layer's: the frame decoder's around it, whose offsets count in the compressed input.
            if (e is not InvalidDataException || e.InnerException is not Lz4FrameException frame || frame.Kind == Lz4FrameErrorKind.Unspecified || frame.Offset < 0)
                return null;
            string message = $"Invalid LZ4 data at byte offset {frame.Offset} of the compressed input (the LZ4 frame around the IPC stream): {frame.Detail}.";
            return new InvalidDataException(message, new Lz4FrameException(message, frame.Kind, frame.Detail, frame.Offset, frame.InnerException ?? e));
        }
    }
}
