using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A deferred body read at positions (a file on .NET 8): the input moves past the body at once, and each thread
    /// that claims a buffer reads that buffer's bytes itself (<see cref="Lz4FrameDecoder.DecodeBatchReading"/>), so the
    /// copy is spread over the threads, not made by the caller. A projected body is compacted: only the kept buffers'
    /// ranges of the original body are read, each into its place in the compacted one; the bytes between them never are.
    /// </summary>
    internal sealed class IpcPositionalBody : IpcDeferredBody
    {
        private readonly Lz4BatchSourceRead _read;
        private bool _pending;
        private long _start;
        private long _originalLength;

        // A projected body: the kept buffers, Source and SourceLength in the original body, Destination in the compacted one.
        private IpcBufferItem[] _kept = System.Array.Empty<IpcBufferItem>();
        private int _keptCount;

        public IpcPositionalBody(IpcInput input)
            : base(input)
        {
            Debug.Assert(input.ReadsAtPositions, "only an input that reads at positions on any thread");
            _read = Read;
        }

        /// <inheritdoc/>
        public override bool ReadsAtPositions => true;

        /// <inheritdoc/>
        public override bool AllThere => !_pending;

        /// <inheritdoc/>
        public override long Left => 0;

        /// <inheritdoc/>
        public override void Defer(byte[] array, int length, long start)
        {
            Begin(array, length, start, length, System.Array.Empty<IpcBufferItem>(), 0);
        }

        /// <summary>
        /// Defers a projected body: <paramref name="length"/> compacted bytes made of the <paramref name="kept"/>
        /// buffers of the <paramref name="originalLength"/>-byte body at <paramref name="start"/>, which the input moves past.
        /// </summary>
        public void DeferProjected(byte[] array, int length, long start, long originalLength, IpcBufferItem[] kept, int keptCount)
        {
            Debug.Assert(keptCount > 0 && keptCount <= kept.Length, "a projected body keeps some buffers");
            Begin(array, length, start, originalLength, kept, keptCount);
        }

        /// <inheritdoc/>
        public override void BringAll(int degree)
        {
            if (!_pending)
                return;
            if (degree > 1 && Length > IpcParallelRead.Chunk)
                IpcParallelRead.Run(Length, degree, _read);
            else
                Read(0, Length);
            _pending = false;
        }

        /// <inheritdoc/>
        public override void DecodeBatch(Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> batch, Lz4FrameDecoderOptions options, Action? alongside)
        {
            if (_pending)
                Lz4FrameDecoder.DecodeBatchReading(Bytes, destination, batch, options, _read);
            else
                base.DecodeBatch(destination, batch, options, alongside);
        }

        /// <inheritdoc/>
        public override ValueTask BringAllAsync(CancellationToken cancellationToken)
        {
            // Positional reads are synchronous either way: read by the threads that claim the buffers, the copy is spread
            // over them, where here the calling thread alone would read the whole body before the decode.
            return default;
        }

        private void Begin(byte[] array, int length, long start, long originalLength, IpcBufferItem[] kept, int keptCount)
        {
            base.Defer(array, length, start);
            _start = start;
            _originalLength = originalLength;
            _kept = kept;
            _keptCount = keptCount;
            _pending = length > 0;
            Debug.Assert(Input.Offset == start, "the input stands at the body");
            for (long left = originalLength; left > 0;)
            {
                int step = (int)Math.Min(left, int.MaxValue);
                Input.Skip(step);
                left -= step;
            }
        }

        /// <summary>Reads a range of the body into its place; on whichever thread claimed it, several at once.</summary>
        private void Read(int offset, int count)
        {
            Debug.Assert(offset >= 0 && (long)offset + count <= Length, "a range of the body");
            if (_keptCount == 0)
            {
                ReadRange(offset, offset, count);
                return;
            }
            int end = offset + count;
            for (int i = FirstEndingAfter(offset); i < _keptCount; i++)
            {
                ref readonly IpcBufferItem kept = ref _kept[i];
                if (kept.Destination >= end)
                    break;
                int from = Math.Max(offset, kept.Destination);
                int to = Math.Min(end, kept.Destination + kept.SourceLength);
                if (from < to)
                    ReadRange(from, kept.Source + (long)(from - kept.Destination), to - from);
            }
        }

        /// <summary>The first kept buffer that ends past <paramref name="offset"/> of the compacted body (they end in order).</summary>
        private int FirstEndingAfter(int offset)
        {
            int low = 0, high = _keptCount;
            while (low < high)
            {
                int middle = low + ((high - low) / 2);
                if (_kept[middle].Destination + _kept[middle].SourceLength > offset)
                    high = middle;
                else
                    low = middle + 1;
            }
            return low;
        }

        private void ReadRange(int at, long original, int count)
        {
            int got = Input.ReadAt(_start + original, Array, at, count);
            if (got < count)
                IpcErrors.ThrowTruncated(Offset + original + got, "a message body", _originalLength, original + got);
        }
    }
}
