using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Consecutive small batch messages of <see cref="IpcCompressingStream"/>, compressed as one batch: each is too
    /// small to be worth handing to the helpers alone (the cost of starting them is more than its encode), so they are
    /// gathered, header and body, and every buffer of all of them is encoded at once on the helpers while the writer
    /// serializes the next ones. Each buffer's frame is the one the message would get alone; each message is laid out
    /// and written as <see cref="IpcBodyCompressor"/> does.
    /// </summary>
    /// <remarks>
    /// One instance holds one group at a time and keeps its pooled arrays, so a steady writer allocates nothing per
    /// message. Until <see cref="Complete"/> returns, a started group's input and slots belong to the helpers.
    /// </remarks>
    internal sealed class IpcMessageGroup : IDisposable
    {
        /// <summary>
        /// A group closes at this many messages, or at <see cref="MaxSourceBytes"/> of buffers: enough that starting the
        /// helpers costs little a message, few enough that what they read and the writer's thread writes next stays in
        /// cache (measured in docs/parallel-write.md, "Small batches, grouped").
        /// </summary>
        public const int MaxMessages = 16;

        /// <summary>A group closes once its buffers reach this many bytes (or the parallel minimum, if lower).</summary>
        public const int MaxSourceBytes = 64 * 1024;

        private const int PrefixLength = 8;
        private const long NoCompression = -1;

        private Entry[] _messages = new Entry[MaxMessages];
        private IpcBufferItem[] _buffers = Array.Empty<IpcBufferItem>();
        private IpcBufferItem[] _messageBuffers = Array.Empty<IpcBufferItem>();
        private Lz4FrameBatchItem[] _items = Array.Empty<Lz4FrameBatchItem>();
        private int[] _written = Array.Empty<int>();
        private byte[] _input = Array.Empty<byte>();
        private byte[] _slots = Array.Empty<byte>();
        private byte[] _output = Array.Empty<byte>();
        private byte[]? _metadata;
        private int _count;
        private int _bufferCount;
        private int _itemCount;
        private int _inputLength;
        private long _slotLength;
        private long _sourceBytes;
        private Lz4FrameBatchEncoding _encoding;
        private bool _started;

        private struct Entry
        {
            public int HeaderAt;
            public int PrefixLength;
            public int MetadataLength;
            public int BodyAt;
            public int BodyLength;
            public long InputOffset;
            public IpcMessage Parsed;
            public int FirstBuffer;
            public int BufferCount;
            public int FirstItem;
            public int ItemCount;
            public int OutputAt;
            public int OutputMetadata;
            public long OutputBody;
            public int Frames;
            public int Raw;
        }

        /// <summary>How many messages the group holds.</summary>
        public int Count => _count;

        /// <summary>The bytes of all its buffers.</summary>
        public long SourceBytes => _sourceBytes;

        /// <summary>Whether its encode has started and not yet been completed.</summary>
        public bool Started => _started;

        /// <summary>
        /// Whether a message of <paramref name="messageBytes"/> in all, whose <paramref name="items"/> non-empty buffers
        /// need <paramref name="slotBytes"/> of slots, still fits (within one array, and the counts one encode takes).
        /// </summary>
        public bool Fits(long messageBytes, long slotBytes, int items) =>
            _count < MaxMessages
            && _inputLength + messageBytes + 8 <= IpcDecompressingStream.DefaultMaxBodyLength
            && _slotLength + slotBytes <= IpcDecompressingStream.DefaultMaxBodyLength
            && (long)_itemCount + items < 0xFFFF;

        /// <summary>
        /// Adds a whole message: its prefix and metadata (<paramref name="header"/>) and its body, copied; its buffers and
        /// frames as <paramref name="plan"/> planned them (checked against the body), each frame given its slot.
        /// </summary>
        public void Add(IpcBodyCompressor plan, in IpcMessage parsed, ReadOnlySpan<byte> header, int prefixLength, ReadOnlySpan<byte> body, long inputOffset)
        {
            Debug.Assert(!_started && _count < MaxMessages, "a group fills before it starts");
            ReadOnlySpan<IpcBufferItem> buffers = plan.PlannedBuffers;
            ReadOnlySpan<Lz4FrameBatchItem> items = plan.PlannedItems;
            ref Entry entry = ref _messages[_count++];
            entry.HeaderAt = _inputLength;
            entry.PrefixLength = prefixLength;
            entry.MetadataLength = header.Length - prefixLength;
            entry.BodyAt = (int)IpcBodyLayout.Align(_inputLength + (long)header.Length);
            entry.BodyLength = body.Length;
            entry.InputOffset = inputOffset;
            entry.Parsed = parsed;
            entry.FirstBuffer = _bufferCount;
            entry.BufferCount = buffers.Length;
            entry.FirstItem = _itemCount;
            entry.ItemCount = items.Length;
            int end = entry.BodyAt + body.Length;
            if (_input.Length < end)
                Regrow(ref _input, _inputLength, end);
            header.CopyTo(_input.AsSpan(entry.HeaderAt));
            AliasSafeCopy.Copy(body, _input.AsSpan(entry.BodyAt));
            _inputLength = end;

            Grow(ref _buffers, _bufferCount + buffers.Length, _bufferCount);
            buffers.CopyTo(_buffers.AsSpan(_bufferCount));
            _bufferCount += buffers.Length;
            Grow(ref _items, _itemCount + items.Length, _itemCount);
            foreach (Lz4FrameBatchItem item in items)
            {
                _items[_itemCount++] = new Lz4FrameBatchItem(entry.BodyAt + item.SourceOffset, item.SourceLength, (int)_slotLength, item.DestinationLength);
                _slotLength += item.DestinationLength;
                _sourceBytes += item.SourceLength;
            }
        }

        /// <summary>The bytes of the slots <see cref="Add"/> will reserve for a message's planned frames.</summary>
        public static long SlotBytes(IpcBodyCompressor plan)
        {
            long slots = 0;
            foreach (Lz4FrameBatchItem item in plan.PlannedItems)
                slots += item.DestinationLength;
            return slots;
        }

        /// <summary>
        /// Starts encoding every buffer of the group on the helpers (the calling thread joins at <see cref="Complete"/>),
        /// whatever its size: being worth it is why the group was made.
        /// </summary>
        public void Start(Lz4FrameEncoderOptions encoder)
        {
            Debug.Assert(!_started && _count > 0, "a filled group starts once");
            if (_slots.Length < _slotLength)
            {
                if (_slots.Length > 0)
                    ArrayPool<byte>.Shared.Return(_slots);
                _slots = ArrayPool<byte>.Shared.Rent((int)_slotLength);
            }
            Grow(ref _written, _itemCount, 0);
            var spread = new Lz4FrameEncoderOptions(
                encoder.BlockSize, encoder.Level, encoder.ContentChecksum, encoder.BlockChecksum, encoder.ContentSize,
                new Lz4Parallelism(encoder.Parallelism.MaxDegreeOfParallelism, minimumLength: 1));
            _encoding = Lz4FrameEncoder.StartEncodeBatch(
                new ReadOnlyMemory<byte>(_input, 0, _inputLength), new Memory<byte>(_slots, 0, (int)_slotLength),
                new ReadOnlyMemory<Lz4FrameBatchItem>(_items, 0, _itemCount), _written, spread);
            _started = true;
        }

        /// <summary>Completes what <see cref="Start"/> began: the calling thread takes the buffers no helper has started, then waits.</summary>
        public void Complete()
        {
            Debug.Assert(_started, "a started group completes once");
            _started = false;
            if (!_encoding.Complete())
                throw new InvalidOperationException("An LZ4 frame did not fit its worst-case length.");
        }

        /// <summary>Waits for an encode still running (after a failure elsewhere), then forgets the group.</summary>
        public void Abandon()
        {
            if (_started)
            {
                _started = false;
                try
                {
                    _encoding.Complete();
                }
                catch (InvalidOperationException)
                {
                }
            }
            Clear();
        }

        /// <summary>Forgets the group's messages once written (the arrays stay for the next group).</summary>
        public void Clear()
        {
            Debug.Assert(!_started, "no helper is on the group");
            _count = _bufferCount = _itemCount = _inputLength = 0;
            _slotLength = _sourceBytes = 0;
        }

        /// <summary>
        /// Lays the completed group's messages out, one after the other, in the output array: each compressed message
        /// (its new metadata, then its body), or as it came when none of its buffers saves space; then hands each one's
        /// parts to <paramref name="emit"/>, in order (once the output array has its final size).
        /// </summary>
        public void Write(double minSpaceSavings, Emit emit)
        {
            Debug.Assert(!_started, "the frames are complete before they are placed");
            int at = 0;
            for (int m = 0; m < _count; m++)
            {
                ref Entry entry = ref _messages[m];
                long bodyLength = Layout(ref entry, minSpaceSavings, out entry.Frames, out entry.Raw);
                entry.OutputAt = at;
                entry.OutputBody = bodyLength;
                if (bodyLength == 0)
                {
                    entry.OutputMetadata = 0;
                    continue;
                }
                var reader = new FlatReader(_input, entry.HeaderAt + entry.PrefixLength, entry.MetadataLength, entry.InputOffset + entry.PrefixLength);
                int padded = IpcCompressedMetadata.Write(
                    ref _metadata, _input.AsSpan(entry.HeaderAt + entry.PrefixLength, entry.MetadataLength), reader, entry.Parsed,
                    IpcMessageCompressor.ReadVectors(reader, entry.Parsed), _messageBuffers, bodyLength, prefix: PrefixLength);
                BinaryPrimitives.WriteInt32LittleEndian(_metadata, -1);
                BinaryPrimitives.WriteInt32LittleEndian(_metadata.AsSpan(4), padded - PrefixLength);
                long end = at + padded + bodyLength;
                if (_output.Length < end)
                    Regrow(ref _output, at, end);
                _metadata.AsSpan(0, padded).CopyTo(_output.AsSpan(at));
                WriteBody(ref entry, _output.AsSpan(at + padded, (int)bodyLength));
                entry.OutputMetadata = padded;
                at = (int)end;
            }
            for (int m = 0; m < _count; m++)
            {
                ref Entry entry = ref _messages[m];
                int header = entry.PrefixLength + entry.MetadataLength;
                if (entry.OutputBody == 0)
                {
                    emit(entry.InputOffset, header, entry.BodyLength, new ReadOnlyMemory<byte>(_input, entry.HeaderAt, header),
                        new ReadOnlyMemory<byte>(_input, entry.BodyAt, entry.BodyLength), 0, 0, entry.BodyLength);
                }
                else
                {
                    emit(entry.InputOffset, header, entry.BodyLength, new ReadOnlyMemory<byte>(_output, entry.OutputAt, entry.OutputMetadata),
                        new ReadOnlyMemory<byte>(_output, entry.OutputAt + entry.OutputMetadata, (int)entry.OutputBody), entry.Frames, entry.Raw, entry.OutputBody);
                }
            }
        }

        /// <summary>Receives one message laid out: its input place and lengths, its output parts, and its buffers' fate.</summary>
        public delegate void Emit(long inputOffset, int inputHeader, long inputBody, ReadOnlyMemory<byte> header, ReadOnlyMemory<byte> body, int frames, int raw, long outputBody);

        /// <summary>Places a message's buffers as <see cref="IpcBodyCompressor.Layout"/> does, into <c>_messageBuffers</c>; 0 when none saves space.</summary>
        private long Layout(ref Entry entry, double minSpaceSavings, out int frames, out int raw)
        {
            Grow(ref _messageBuffers, entry.BufferCount, 0);
            long total = 0;
            frames = raw = 0;
            for (int i = 0, k = entry.FirstItem; i < entry.BufferCount; i++)
            {
                ref IpcBufferItem buffer = ref _messageBuffers[i];
                buffer = _buffers[entry.FirstBuffer + i];
                buffer.Destination = (int)IpcBodyLayout.Align(total);
                if (buffer.SourceLength == 0)
                    continue;
                int written = _written[k++];
                buffer.Raw = 1.0 - ((double)written / buffer.SourceLength) < minSpaceSavings;
                buffer.Length = PrefixLength + (buffer.Raw ? buffer.SourceLength : written);
                if (buffer.Raw)
                    raw++;
                else
                    frames++;
                total = buffer.Destination + (long)buffer.Length;
            }
            return frames == 0 ? 0 : IpcBodyLayout.Align(total);
        }

        /// <summary>Writes a laid out message's body into <paramref name="target"/>, padding zeroed, as <see cref="IpcBodyCompressor.WriteBody"/> does.</summary>
        private void WriteBody(ref Entry entry, Span<byte> target)
        {
            int total = 0;
            for (int i = 0, k = entry.FirstItem; i < entry.BufferCount; i++)
            {
                ref IpcBufferItem buffer = ref _messageBuffers[i];
                target.Slice(total, buffer.Destination - total).Clear();
                if (buffer.SourceLength == 0)
                    continue;
                ref readonly Lz4FrameBatchItem item = ref _items[k++];
                Span<byte> at = target.Slice(buffer.Destination, buffer.Length);
                if (buffer.Raw)
                    AliasSafeCopy.Copy(_input.AsSpan(item.SourceOffset, buffer.SourceLength), at.Slice(PrefixLength));
                else
                    AliasSafeCopy.Copy(_slots.AsSpan(item.DestinationOffset, buffer.Length - PrefixLength), at.Slice(PrefixLength));
                BinaryPrimitives.WriteInt64LittleEndian(at, buffer.Raw ? NoCompression : buffer.SourceLength);
                total = buffer.Destination + buffer.Length;
            }
            target.Slice(total).Clear();
        }

        public void Dispose()
        {
            Abandon();
            foreach (byte[] array in new[] { _input, _slots, _output })
            {
                if (array.Length > 0)
                    ArrayPool<byte>.Shared.Return(array);
            }
            _input = _slots = _output = Array.Empty<byte>();
        }

        private static void Regrow(ref byte[] array, int keep, long length)
        {
            byte[] larger = ArrayPool<byte>.Shared.Rent((int)Math.Min(Math.Max(length, 2L * array.Length), int.MaxValue));
            array.AsSpan(0, keep).CopyTo(larger);
            if (array.Length > 0)
                ArrayPool<byte>.Shared.Return(array);
            array = larger;
        }

        private static void Grow<T>(ref T[] array, int count, int keep)
        {
            if (array.Length >= count)
                return;
            var larger = new T[Math.Max(count, array.Length * 2)];
            Array.Copy(array, larger, keep);
            array = larger;
        }
    }
}
