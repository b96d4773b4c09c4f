using System;
using System.Buffers;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Decodes a laid-out body into its destination with one degree of parallelism: small bodies on the calling thread;
    /// a body one buffer dominates on the calling thread with block-parallel frame decoding; any other body in two
    /// steps: the buffers that cannot be split buffer by buffer with <see cref="Lz4FrameDecoder.DecodeBatch"/> (the
    /// caller and the frame package's helper threads, each buffer decoded sequentially), then the large frames of
    /// independent blocks one after the other, each split into block ranges over the same threads (so a batch of a few
    /// such buffers is shared as evenly as the codec path shares one). The steps run one after the other, so
    /// the two levels never both fan out.
    /// </summary>
    internal sealed class IpcBodyDecoder
    {
        private readonly Lz4FrameDecoderOptions _sequential;
        private readonly Lz4FrameDecoderOptions _blockParallel;
        private readonly Lz4FrameDecoderOptions _bufferParallel;
        private readonly int _degree;
        private readonly int _minimumParallelLength;
        private Lz4FrameBatchItem[] _batch = Array.Empty<Lz4FrameBatchItem>();
        private int[] _splits = Array.Empty<int>();
        private int[] _batchBuffers = Array.Empty<int>();

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

        /// <summary>The most threads a body is decoded on (1: the calling thread only).</summary>
        public int Degree => _degree;

        /// <summary>The shortest body decoded on more than one thread.</summary>
        public int MinimumParallelLength => _minimumParallelLength;

        /// <summary>
        /// Decodes the body's buffers into their places in <paramref name="destination"/>. The body says how its bytes
        /// come (all there, arriving, or read at positions by the threads that decode them): the buffer-level batch runs
        /// that way, and any other way of decoding first brings the body whole. <paramref name="alongside"/> (the
        /// stream's read-ahead) runs on the calling thread while the helpers decode the buffer-level batch: at most
        /// once, and not at all when the body is decoded otherwise.
        /// </summary>
        public void Decode(IpcBodySource body, Span<byte> destination, Action? alongside = null)
        {
            ReadOnlySpan<byte> source = body.Bytes;
            long bodyOffset = body.Offset;
            IpcBufferItem[] items = body.Items;
            int count = body.Count;
            Debug.Assert((uint)count <= (uint)items.Length, "the layout's count is within its items");
            // Padding is zeroed so that the output never depends on what the destination held.
            int end = 0;
            long largest = 0;
            int work = 0;
            for (int i = 0; i < count; i++)
            {
                ref IpcBufferItem item = ref items[i];
                // The layout verified this: buffers in body order, inside the body and the destination, not overlapping.
                Debug.Assert(item.Destination >= end && (long)item.Destination + item.Length <= destination.Length, "destinations are in order and in bounds");
                Debug.Assert(item.Source >= 0 && (long)item.Source + item.SourceLength <= source.Length, "sources lie within the body");
                destination.Slice(end, item.Destination - end).Clear();
                end = item.Destination + item.Length;
                if (item.Length > 0 || !item.Raw)
                    work++;
                if (item.Length > largest)
                    largest = item.Length;
            }
            destination.Slice(end).Clear();

            // With work alongside (the read-ahead), even one large buffer goes to the batch: a helper decodes it while
            // the calling thread does that work, where in order the helper would idle.
            bool parallel = _degree > 1 && destination.Length >= _minimumParallelLength && (work >= 2 || (work == 1 && alongside is not null));
            if (!parallel || (alongside is null && largest * 4 >= destination.Length * 3L))
            {
                Lz4FrameDecoderOptions options = _degree > 1 && largest >= _minimumParallelLength ? _blockParallel : _sequential;
                body.BringAll(_degree);
                Debug.Assert(body.AllThere, "a body decoded in order is all there first");
                DecodeInOrder(source, destination, bodyOffset, items, count, options);
                return;
            }

            if (_batch.Length < count)
            {
                Release();
                _batch = ArrayPool<Lz4FrameBatchItem>.Shared.Rent(count);
                _splits = ArrayPool<int>.Shared.Rent(count);
                _batchBuffers = ArrayPool<int>.Shared.Rent(count);
            }
            // Each buffer is looked at once: decoded whole (in the batch) or split (its index kept, in body order).
            // Only each buffer's head is needed here: a deferred body has its heads there.
            int n = 0;
            int split = 0;
            for (int i = 0; i < count; i++)
            {
                ref IpcBufferItem item = ref items[i];
                if (item.SourceLength == 0 && !item.Raw)
                {
                    // Arrow .NET and Arrow Java write an empty buffer as a bare 0 prefix; it is checked, not decoded.
                    if (item.Length != 0)
                        IpcBufferDecoder.Decode(source, destination, in item, bodyOffset, _sequential);
                    continue;
                }
                if (item.Length == 0 && item.Raw)
                    continue;
                if (Splits(source, in item))
                    _splits[split++] = i;
                else
                {
                    _batchBuffers[n] = i;
                    _batch[n++] = new Lz4FrameBatchItem(item.Source, item.SourceLength, item.Destination, item.Length, item.Raw);
                }
            }
            Debug.Assert(n + split <= work, "every buffer goes to the batch or is split, once");
            if (split > 0 || n == 0)
            {
                // Split frames decode block by block after the batch: their bytes must all be there. Not alongside:
                // the helpers would finish the batch while the caller reads ahead, and park before the block step that
                // follows (waking them costs more than the read-ahead saves).
                body.BringAll(_degree);
                alongside = null;
            }
            try
            {
                if (n > 0)
                    body.DecodeBatch(destination, _batch.AsSpan(0, n), _bufferParallel, alongside);
                Debug.Assert(body.AllThere || split == 0, "split frames decode from a body all there");
                for (int i = 0; i < split; i++)
                    IpcBufferDecoder.Decode(source, destination, in items[_splits[i]], bodyOffset, _blockParallel);
            }
            catch (Exception e) when ((e is InvalidDataException || e is NotSupportedException) && e.InnerException is Lz4FrameException { BatchItem: >= 0 } frame)
            {
                throw BatchFailed(source, destination, bodyOffset, items, split, frame, e);
            }
        }

        /// <summary>
        /// Whether a buffer is decoded on its own with its blocks spread over the threads: exactly the frames the codec
        /// path decodes block-parallel (independent blocks, more than one, at least the minimum parallel length; Arrow
        /// Go, python-lz4 and this package's writer make them), so the wrapper never decodes on fewer threads what the
        /// codec path spreads. Only the frame's header is read, and a malformed one is the decoder's to reject.
        /// Splitting only much larger frames shared mid-sized ones whole, and read slower than the codec path
        /// (measured in docs/parallel-read.md).
        /// </summary>
        private bool Splits(ReadOnlySpan<byte> body, in IpcBufferItem item) =>
            !item.Raw
            && item.Length >= _minimumParallelLength
            && Lz4FrameDescriptor.TryRead(body.Slice(item.Source, item.SourceLength), 0, out Lz4FrameDescriptor frame)
            && !frame.IsLinked
            && item.Length > frame.BlockMaximumSize;

        /// <summary>
        /// The error of a failed batch, as the sequential path gives it: the split buffers before the failing one (in
        /// body order) are decoded first, as that path would, and any error of theirs wins; otherwise the batch's
        /// failure is worded for the stream from its data (which item, what, where in its frame). The body has all
        /// arrived: a batch that fails on its data has run its fill to the end.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private Exception BatchFailed(ReadOnlySpan<byte> body, Span<byte> destination, long bodyOffset, IpcBufferItem[] items, int split, Lz4FrameException frame, Exception e)
        {
            int failed = _batchBuffers[frame.BatchItem];
            Debug.Assert(_batch[frame.BatchItem].SourceOffset == items[failed].Source, "the batch item maps back to its buffer");
            for (int i = 0; i < split && _splits[i] < failed; i++)
                IpcBufferDecoder.Decode(body, destination, in items[_splits[i]], bodyOffset, _blockParallel);
            return IpcBufferDecoder.Invalid(in items[failed], bodyOffset, frame, frame.Offset - items[failed].Source, e);
        }

        /// <summary>Returns the pooled arrays.</summary>
        public void Release()
        {
            if (_batch.Length > 0)
            {
                ArrayPool<Lz4FrameBatchItem>.Shared.Return(_batch);
                ArrayPool<int>.Shared.Return(_splits);
                ArrayPool<int>.Shared.Return(_batchBuffers);
            }
            _batch = Array.Empty<Lz4FrameBatchItem>();
            _splits = Array.Empty<int>();
            _batchBuffers = Array.Empty<int>();
        }

        private static void DecodeInOrder(ReadOnlySpan<byte> body, Span<byte> destination, long bodyOffset, IpcBufferItem[] items, int count, Lz4FrameDecoderOptions options)
        {
            for (int i = 0; i < count; i++)
                IpcBufferDecoder.Decode(body, destination, in items[i], bodyOffset, options);
        }
    }
}
