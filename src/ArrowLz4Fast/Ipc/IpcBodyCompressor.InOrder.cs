using System;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The in-order path: a message whose buffers would be encoded one after the other on the calling thread anyway
    /// is encoded buffer by buffer as its bytes arrive, each frame straight at its final place in the scratch, so the
    /// body is neither copied in whole nor moved to the front afterwards.
    /// </summary>
    internal sealed partial class IpcBodyCompressor
    {
        private int _nextBuffer;
        private int _nextItem;
        private long _end;
        private int _compressedCount;

        /// <summary>
        /// Whether the planned items are encoded in order on the calling thread, each frame's blocks spread as
        /// <see cref="Lz4FrameEncoder.TryEncode"/> spreads them: when <see cref="Start"/> would encode them so anyway (the
        /// rule of <see cref="Lz4FrameEncoder.StartEncodeBatch"/>: one thread, fewer than two items, less than the
        /// parallel minimum in all, one item with three quarters of the bytes), or when three quarters of the bytes are
        /// in buffers that keep every thread busy by themselves (<see cref="SpreadsByItself"/>). Such buffers gain
        /// nothing from being encoded side by side, and in order they are neither copied in nor moved after. The frames
        /// are the same either way.
        /// </summary>
        public bool EncodesInOrder(Lz4FrameEncoderOptions encoder)
        {
            Lz4Parallelism parallelism = encoder.Parallelism;
            if (!parallelism.IsParallel || _itemCount < 2)
                return true;
            int degree = Math.Min(parallelism.MaxDegreeOfParallelism, Environment.ProcessorCount);
            long total = 0, largest = 0, spread = 0;
            for (int i = 0; i < _itemCount; i++)
            {
                int length = _items[i].SourceLength;
                total += length;
                largest = Math.Max(largest, length);
                if (SpreadsByItself(length, encoder, degree))
                    spread += length;
            }
            return total < parallelism.MinimumLength || largest * 4 >= total * 3 || spread * 4 >= total * 3;
        }

        /// <summary>
        /// Whether <see cref="Lz4FrameEncoder.TryEncode"/> spreads a buffer of <paramref name="length"/> bytes over
        /// <paramref name="degree"/> threads with little idle: at least a block per thread, and the blocks fill at least
        /// three quarters of the rounds in which the threads claim them (two halves on two threads, 32 blocks on 16).
        /// </summary>
        private static bool SpreadsByItself(int length, Lz4FrameEncoderOptions encoder, int degree)
        {
            if (degree < 2 || length < encoder.Parallelism.MinimumLength)
                return false;
            long stride = Lz4FrameEncoder.BlockStride(length, encoder);
            long blocks = (length + stride - 1) / stride;
            long rounds = (blocks + degree - 1) / degree;
            return blocks >= degree && blocks * 4 >= rounds * degree * 3;
        }

        /// <summary>Whether encoding the planned items in order posts work to the helpers: some frame's blocks spread over threads.</summary>
        public bool InOrderUsesHelpers(Lz4FrameEncoderOptions encoder)
        {
            Lz4Parallelism parallelism = encoder.Parallelism;
            if (!parallelism.IsParallel)
                return false;
            for (int i = 0; i < _itemCount; i++)
            {
                int length = _items[i].SourceLength;
                if (length >= parallelism.MinimumLength && length > Lz4FrameEncoder.BlockStride(length, encoder))
                    return true;
            }
            return false;
        }

        /// <summary>Starts laying the planned message out in order; <see cref="TryPeekNext"/> names the buffer wanted next.</summary>
        public void BeginInOrder()
        {
            Debug.Assert(!_pending, "one message at a time");
            _nextBuffer = 0;
            _nextItem = 0;
            _end = 0;
            _compressedCount = 0;
        }

        /// <summary>The body range of the next buffer to encode; <see langword="false"/> once every buffer is encoded.</summary>
        public bool TryPeekNext(out int offset, out int length)
        {
            if (_nextItem == _itemCount)
            {
                offset = length = 0;
                return false;
            }
            offset = _items[_nextItem].SourceOffset;
            length = _items[_nextItem].SourceLength;
            return true;
        }

        /// <summary>
        /// Encodes the next buffer, <paramref name="source"/>, at its final place (after the buffers before it, as
        /// <see cref="Layout"/> places them): its prefix, then its frame, or its bytes raw when the frame does not save
        /// <paramref name="minSpaceSavings"/>. Returns whether it went raw: then the caller keeps its bytes, which the
        /// message needs should no buffer save space.
        /// </summary>
        // Not inlined into the stream's write path, whose calls are mostly not a whole buffer (padding, metadata): the
        // frame encoder inlined there made every write pay its large stack frame.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public bool EncodeNext(ReadOnlySpan<byte> source, Lz4FrameEncoderOptions encoder, double minSpaceSavings)
        {
            ref readonly Lz4FrameBatchItem item = ref _items[_nextItem];
            Debug.Assert(source.Length == item.SourceLength, "the next buffer whole");
            SkipEmptyBuffers();
            ref IpcBufferItem buffer = ref _buffers[_nextBuffer];
            Debug.Assert(buffer.SourceLength == item.SourceLength, "items are the non-empty buffers, in order");
            int destination = (int)IpcBodyLayout.Align(_end);
            // Each frame lies no further on than its slot, so its worst case still fits the scratch.
            Debug.Assert(destination + PrefixLength <= item.DestinationOffset, "in order, a frame's place is at or before its slot");
            _scratch.AsSpan((int)_end, destination - (int)_end).Clear();
            Span<byte> frame = _scratch.AsSpan(destination + PrefixLength, item.DestinationLength);
            if (!Lz4FrameEncoder.TryEncode(source, frame, out int written, encoder))
                throw new InvalidOperationException("An LZ4 frame did not fit its worst-case length.");
            buffer.Destination = destination;
            buffer.Raw = GoesRaw(written, buffer.SourceLength, minSpaceSavings);
            if (buffer.Raw)
                AliasSafeCopy.Copy(source, frame);
            else
                _compressedCount++;
            buffer.Length = PrefixLength + (buffer.Raw ? buffer.SourceLength : written);
            BinaryPrimitives.WriteInt64LittleEndian(_scratch.AsSpan(destination), buffer.Raw ? NoCompression : buffer.SourceLength);
            _end = destination + (long)buffer.Length;
            _nextItem++;
            _nextBuffer++;
            return buffer.Raw;
        }

        /// <summary>
        /// Ends the in-order layout once every buffer is encoded: returns the body length, as <see cref="Layout"/> does
        /// (0 when no buffer saves space), with the body at the front of the scratch, where <see cref="Body"/> is.
        /// </summary>
        public long FinishInOrder()
        {
            Debug.Assert(_nextItem == _itemCount, "every buffer encoded");
            SkipEmptyBuffers();
            _bodyLength = _compressedCount == 0 ? 0 : IpcBodyLayout.Align(_end);
            _scratch.AsSpan((int)_end, (int)(_bodyLength == 0 ? 0 : _bodyLength - _end)).Clear();
            return _bodyLength;
        }

        /// <summary>Places the empty buffers before the next non-empty one: they take no room.</summary>
        private void SkipEmptyBuffers()
        {
            while (_nextBuffer < _bufferCount && _buffers[_nextBuffer].SourceLength == 0)
                _buffers[_nextBuffer++].Destination = (int)IpcBodyLayout.Align(_end);
        }
    }
}
