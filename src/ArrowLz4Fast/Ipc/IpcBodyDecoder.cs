using System;
using System.Buffers;
using System.IO;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Decodes a laid-out body into its destination with one degree of parallelism: small bodies on the calling thread;
    /// a body one buffer dominates on the calling thread with block-parallel frame decoding; any other body buffer by
    /// buffer with <see cref="Lz4FrameDecoder.DecodeBatch"/> (the caller and the frame package's helper threads, each
    /// buffer decoded sequentially), so the two levels never both fan out.
    /// </summary>
    internal sealed class IpcBodyDecoder
    {
        private readonly Lz4FrameDecoderOptions _sequential;
        private readonly Lz4FrameDecoderOptions _blockParallel;
        private readonly Lz4FrameDecoderOptions _bufferParallel;
        private readonly int _degree;
        private readonly int _minimumParallelLength;
        private Lz4FrameBatchItem[] _batch = Array.Empty<Lz4FrameBatchItem>();

        public IpcBodyDecoder(Lz4FastOptions options)
        {
            Lz4Parallelism parallelism = options.Parallelism;
            _degree = parallelism.MaxDegreeOfParallelism;
            _minimumParallelLength = parallelism.MinimumLength;
            _sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            _blockParallel = new Lz4FrameDecoderOptions(options.VerifyChecksums, parallelism);
            // The body as a whole passed the minimum length below; the batch must not apply it again to the buffers alone.
            _bufferParallel = new Lz4FrameDecoderOptions(options.VerifyChecksums, _degree > 1 ? new Lz4Parallelism(_degree, 1) : Lz4Parallelism.Sequential);
        }

        public void Decode(ReadOnlySpan<byte> body, Span<byte> destination, long bodyOffset, IpcBufferItem[] items, int count)
        {
            // Padding is zeroed so that the output never depends on what the destination held.
            int end = 0;
            long largest = 0;
            int work = 0;
            for (int i = 0; i < count; i++)
            {
                ref IpcBufferItem item = ref items[i];
                destination.Slice(end, item.Destination - end).Clear();
                end = item.Destination + item.Length;
                if (item.Length > 0 || !item.Raw)
                    work++;
                if (item.Length > largest)
                    largest = item.Length;
            }
            destination.Slice(end).Clear();

            bool parallel = _degree > 1 && destination.Length >= _minimumParallelLength && work >= 2;
            if (!parallel || largest * 4 >= destination.Length * 3L)
            {
                Lz4FrameDecoderOptions options = _degree > 1 && largest >= _minimumParallelLength ? _blockParallel : _sequential;
                DecodeInOrder(body, destination, bodyOffset, items, count, options);
                return;
            }

            if (_batch.Length < count)
            {
                Release();
                _batch = ArrayPool<Lz4FrameBatchItem>.Shared.Rent(count);
            }
            int n = 0;
            for (int i = 0; i < count; i++)
            {
                ref IpcBufferItem item = ref items[i];
                if (item.SourceLength == 0 && !item.Raw)
                {
                    // Arrow .NET and Arrow Java write an empty buffer as a bare 0 prefix; it is checked, not decoded.
                    if (item.Length != 0)
                        IpcBufferDecoder.Decode(body, destination, in item, bodyOffset, _sequential);
                    continue;
                }
                if (item.Length > 0 || !item.Raw)
                    _batch[n++] = new Lz4FrameBatchItem(item.Source, item.SourceLength, item.Destination, item.Length, item.Raw);
            }
            try
            {
                Lz4FrameDecoder.DecodeBatch(body, destination, _batch.AsSpan(0, n), _bufferParallel);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                // Bad input is rare: the buffers decode again in body order so that the error is the one the
                // sequential path gives, worded for the stream and at its offset in the input.
                DecodeInOrder(body, destination, bodyOffset, items, count, _sequential);
                throw;
            }
        }

        /// <summary>Returns the pooled batch array.</summary>
        public void Release()
        {
            if (_batch.Length > 0)
                ArrayPool<Lz4FrameBatchItem>.Shared.Return(_batch);
            _batch = Array.Empty<Lz4FrameBatchItem>();
        }

        private static void DecodeInOrder(ReadOnlySpan<byte> body, Span<byte> destination, long bodyOffset, IpcBufferItem[] items, int count, Lz4FrameDecoderOptions options)
        {
            for (int i = 0; i < count; i++)
                IpcBufferDecoder.Decode(body, destination, in items[i], bodyOffset, options);
        }
    }
}
