using System;
using System.Buffers;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Decodes a laid-out body into its destination with one degree of parallelism: small bodies on the calling thread;
    /// a body one buffer dominates on the calling thread with block-parallel frame decoding; any other body buffer by
    /// buffer on the caller and helpers, each buffer decoded sequentially, so the two levels never both fan out.
    /// </summary>
    internal sealed class IpcBodyDecoder
    {
        private readonly Lz4FrameDecoderOptions _sequential;
        private readonly Lz4FrameDecoderOptions _blockParallel;
        private readonly int _degree;
        private readonly int _minimumParallelLength;
        private int[] _order = Array.Empty<int>();
        private long[] _keys = Array.Empty<long>();
        private IpcParallelDecode? _job;

        public IpcBodyDecoder(Lz4FastOptions options)
        {
            Lz4Parallelism parallelism = options.Parallelism;
            _degree = parallelism.MaxDegreeOfParallelism;
            _minimumParallelLength = parallelism.MinimumLength;
            _sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            _blockParallel = new Lz4FrameDecoderOptions(options.VerifyChecksums, parallelism);
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
                for (int i = 0; i < count; i++)
                    IpcBufferDecoder.Decode(body, destination, in items[i], bodyOffset, options);
                return;
            }

            if (_order.Length < work || _keys.Length < work)
            {
                Release();
                _order = ArrayPool<int>.Shared.Rent(work);
                _keys = ArrayPool<long>.Shared.Rent(work);
            }
            int n = 0;
            for (int i = 0; i < count; i++)
            {
                if (items[i].Length > 0 || !items[i].Raw)
                {
                    _order[n] = i;
                    _keys[n] = -(long)items[i].Length;
                    n++;
                }
            }
            Array.Sort(_keys, _order, 0, n);

            if (_job is null || !_job.Idle)
                _job = new IpcParallelDecode();
            _job.Run(body, destination, bodyOffset, items, _order, n, Math.Min(_degree, n) - 1, _sequential);
        }

        /// <summary>Returns the pooled claim-order arrays.</summary>
        public void Release()
        {
            if (_order.Length > 0)
                ArrayPool<int>.Shared.Return(_order);
            if (_keys.Length > 0)
                ArrayPool<long>.Shared.Return(_keys);
            _order = Array.Empty<int>();
            _keys = Array.Empty<long>();
        }
    }
}
