using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Compresses the body of one uncompressed IPC record or dictionary batch as Arrow writers do with LZ4_FRAME, for
    /// <see cref="IpcMessageCompressor"/> (Flight) and <see cref="IpcCompressingStream"/> alike: every non-empty buffer
    /// becomes its 8-byte little-endian uncompressed length and one frame, at the next 8-byte aligned offset; a buffer
    /// that does not save the minimum space goes raw behind the length -1 (Arrow C++'s <c>min_space_savings</c>); an
    /// empty buffer stays empty, with no prefix (as Arrow C++ writes it).
    /// </summary>
    /// <remarks>
    /// Each frame is encoded into a slot of pooled scratch sized for its worst case, at the offset its buffer would
    /// have if every frame took that much; the finished body is then laid out in the same scratch by moving each frame
    /// towards the front, which never reaches a slot not yet moved. One instance serves one message at a time and keeps
    /// its pooled arrays, so a steady writer allocates nothing per message but the new metadata.
    /// </remarks>
    internal sealed partial class IpcBodyCompressor : IDisposable
    {
        private const int PrefixLength = 8;
        private const long NoCompression = -1;

        private IpcBufferItem[] _buffers = Array.Empty<IpcBufferItem>();
        private Lz4FrameBatchItem[] _items = Array.Empty<Lz4FrameBatchItem>();
        private int[] _written = Array.Empty<int>();
        private byte[] _scratch = Array.Empty<byte>();
        private int _bufferCount;
        private int _itemCount;
        private long _bodyLength;
        private Lz4FrameBatchEncoding _encoding;
        private bool _pending;

        /// <summary>Each buffer's place in the compressed body (valid after <see cref="Layout"/>).</summary>
        public IpcBufferItem[] Buffers => _buffers;

        /// <summary>The compressed body written by <see cref="WriteBodyInPlace"/>.</summary>
        public ReadOnlyMemory<byte> Body => new(_scratch, 0, (int)_bodyLength);

        /// <summary>
        /// Reads the buffer list of <paramref name="message"/> (whose extents were checked against the body) and sizes
        /// the scratch; <see langword="false"/> when the frames' worst case would not fit one array (the message then
        /// goes as it is).
        /// </summary>
        public bool Plan(FlatReader reader, in IpcMessage message, Lz4FrameEncoderOptions encoder)
        {
            Debug.Assert(!_pending, "one message at a time");
            int count = message.BufferCount;
            Grow(ref _buffers, count);
            Grow(ref _items, count);
            Grow(ref _written, count);
            _bufferCount = count;
            _itemCount = 0;
            long slots = 0;
            for (int i = 0; i < count; i++)
            {
                int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                ref IpcBufferItem buffer = ref _buffers[i];
                buffer = default;
                buffer.Source = (int)reader.ReadInt64(at);
                buffer.SourceLength = (int)reader.ReadInt64(at + 8);
                if (buffer.SourceLength == 0)
                    continue;
                long room = Lz4FrameEncoder.GetMaxEncodedLength(buffer.SourceLength, encoder);
                long frame = slots + PrefixLength;
                slots = IpcBodyLayout.Align(frame + room);
                if (slots > IpcDecompressingStream.DefaultMaxBodyLength)
                    return false;
                _items[_itemCount++] = new Lz4FrameBatchItem(buffer.Source, buffer.SourceLength, (int)frame, (int)room);
            }
            if (_scratch.Length < slots)
            {
                ReturnScratch();
                _scratch = ArrayPool<byte>.Shared.Rent((int)slots);
            }
            return true;
        }

        /// <summary>Encodes every buffer on the calling thread and the helpers, returning when done.</summary>
        public void Encode(ReadOnlySpan<byte> body, Lz4FrameEncoderOptions encoder)
        {
            if (!Lz4FrameEncoder.TryEncodeBatch(body, _scratch, _items.AsSpan(0, _itemCount), _written, encoder))
                throw new InvalidOperationException("An LZ4 frame did not fit its worst-case length.");
        }

        /// <summary>
        /// Starts encoding every buffer on the helpers; <see cref="Complete"/> takes part and waits. <paramref name="body"/>
        /// must stay as it is until then. Started <paramref name="after"/> another compressor's encode, not yet complete,
        /// it is that encode's helpers that move on to this one, and that encode's completion takes part in this one.
        /// </summary>
        public void Start(ReadOnlyMemory<byte> body, Lz4FrameEncoderOptions encoder, IpcBodyCompressor? after = null)
        {
            Debug.Assert(!_pending, "one message at a time");
            Debug.Assert(after is null || (after != this && after._pending), "follows another compressor's encode, still running");
            _encoding = Lz4FrameEncoder.StartEncodeBatchAfter(body, _scratch, _items.AsMemory(0, _itemCount), _written, encoder, after?._encoding ?? default);
            _pending = true;
        }

        /// <summary>Completes what <see cref="Start"/> began.</summary>
        public void Complete()
        {
            Debug.Assert(_pending, "a started encode completes once");
            _pending = false;
            if (!_encoding.Complete())
                throw new InvalidOperationException("An LZ4 frame did not fit its worst-case length.");
        }

        /// <summary>
        /// Places every buffer in the compressed body (each at the next 8-byte boundary: its prefix, then its frame, or
        /// its bytes raw when the frame does not save <paramref name="minSpaceSavings"/>), filling <see cref="Buffers"/>;
        /// returns the body length, or 0 when no buffer saves space (then the message is smaller as it is, and any reader
        /// reads it). Nothing is copied yet: <see cref="WriteBody"/> or <see cref="WriteBodyInPlace"/> does.
        /// </summary>
        public long Layout(double minSpaceSavings)
        {
            Debug.Assert(!_pending, "the frames are complete before they are placed");
            long total = 0;
            int compressed = 0;
            for (int i = 0, k = 0; i < _bufferCount; i++)
            {
                ref IpcBufferItem buffer = ref _buffers[i];
                buffer.Destination = (int)IpcBodyLayout.Align(total);
                if (buffer.SourceLength == 0)
                    continue;
                int written = _written[k++];
                // Arrow C++'s rule: raw when the space saved, 1 - compressed / uncompressed, is below the minimum.
                buffer.Raw = GoesRaw(written, buffer.SourceLength, minSpaceSavings);
                buffer.Length = PrefixLength + (buffer.Raw ? buffer.SourceLength : written);
                if (!buffer.Raw)
                    compressed++;
                total = buffer.Destination + (long)buffer.Length;
            }
            _bodyLength = compressed == 0 ? 0 : IpcBodyLayout.Align(total);
            return _bodyLength;
        }

        /// <summary>Writes the body <see cref="Layout"/> placed into <paramref name="target"/> (at least its length; padding zeroed).</summary>
        public void WriteBody(ReadOnlySpan<byte> body, Span<byte> target)
        {
            Debug.Assert(_bodyLength > 0 && target.Length >= _bodyLength, "a laid out body, and room for it");
            long total = 0;
            for (int i = 0, k = 0; i < _bufferCount; i++)
            {
                ref IpcBufferItem buffer = ref _buffers[i];
                // The gap before the buffer: padding, zeroed so that the output never depends on what the memory held.
                target.Slice((int)total, buffer.Destination - (int)total).Clear();
                if (buffer.SourceLength == 0)
                    continue;
                ref readonly Lz4FrameBatchItem item = ref _items[k++];
                Span<byte> at = target.Slice(buffer.Destination, buffer.Length);
                // In place, a frame only moves towards the front and never reaches a slot not yet moved; its prefix
                // lies before the frame's old place.
                Debug.Assert(!Unsafe.AreSame(ref MemoryMarshal.GetReference(target), ref _scratch[0]) || buffer.Destination + PrefixLength <= item.DestinationOffset);
                if (buffer.Raw)
                    AliasSafeCopy.Copy(body.Slice(buffer.Source, buffer.SourceLength), at.Slice(PrefixLength));
                else
                    AliasSafeCopy.Copy(_scratch.AsSpan(item.DestinationOffset, buffer.Length - PrefixLength), at.Slice(PrefixLength));
                BinaryPrimitives.WriteInt64LittleEndian(at, buffer.Raw ? NoCompression : buffer.SourceLength);
                total = buffer.Destination + (long)buffer.Length;
            }
            target.Slice((int)total, (int)(_bodyLength - total)).Clear();
        }

        /// <summary>Writes the body <see cref="Layout"/> placed at the front of the scratch, where <see cref="Body"/> is.</summary>
        public void WriteBodyInPlace(ReadOnlySpan<byte> body) => WriteBody(body, _scratch);

        /// <summary>
        /// Records the message <see cref="Layout"/> laid out, for <paramref name="path"/>: its frames and raw buffers, and
        /// its body in and out (out is in when no buffer saved space and the message goes as it was).
        /// </summary>
        public void Record(in KeyValuePair<string, object?> path, long inputBody)
        {
            int frames = 0, raw = 0;
            for (int i = 0; _bodyLength > 0 && i < _bufferCount && ArrowLz4FastMetrics.CountsCompressedBuffers; i++)
            {
                ref readonly IpcBufferItem buffer = ref _buffers[i];
                if (buffer.SourceLength == 0)
                    continue;
                if (buffer.Raw)
                    raw++;
                else
                    frames++;
            }
            ArrowLz4FastMetrics.RecordCompressMessage(path, frames, raw, inputBody, _bodyLength > 0 ? _bodyLength : inputBody);
        }

        /// <summary>Waits for an encode still running (after a failure elsewhere), so that no helper touches memory that goes back to its pool.</summary>
        public void Abandon()
        {
            if (_pending)
            {
                _pending = false;
                try
                {
                    _encoding.Complete();
                }
                catch (InvalidOperationException)
                {
                }
            }
        }

        /// <summary>Gives the scratch back to its pool (kept idle, it would hold the largest body seen).</summary>
        public void ReleaseScratch()
        {
            Debug.Assert(!_pending, "no encode writes to the scratch");
            ReturnScratch();
            _scratch = Array.Empty<byte>();
            _bodyLength = 0;
        }

        public void Dispose()
        {
            Abandon();
            ReleaseScratch();
        }

        private void ReturnScratch()
        {
            if (_scratch.Length > 0)
                ArrayPool<byte>.Shared.Return(_scratch);
        }

        private static void Grow<T>(ref T[] array, int count)
        {
            if (array.Length < count)
                array = new T[Math.Max(count, array.Length * 2)];
        }

        /// <summary>
        /// Whether a buffer of <paramref name="length"/> bytes whose frame took <paramref name="written"/> goes raw: it saves
        /// less than <paramref name="minSpaceSavings"/> of its length, as Arrow C++ computes it. At 0 that is a frame
        /// longer than the buffer, which needs no division (one per buffer shows on batches of tiny buffers).
        /// </summary>
        internal static bool GoesRaw(int written, int length, double minSpaceSavings) =>
            minSpaceSavings == 0 ? written > length : 1.0 - ((double)written / length) < minSpaceSavings;
    }
}
