using System;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Lays an LZ4_FRAME-compressed body out decompressed (each buffer at the next 8-byte aligned offset, as Arrow
    /// writers align) and rewrites the message metadata to match: new buffer offsets and lengths, the new bodyLength,
    /// and no BodyCompression.
    /// </summary>
    internal static class IpcBodyLayout
    {
        internal const int Alignment = 8;

        internal static long Align(long value) => (value + (Alignment - 1)) & ~(long)(Alignment - 1);

        /// <summary>
        /// The most an LZ4 frame of <paramref name="frameLength"/> bytes can decode to. A sequence gives at most 255
        /// output bytes per input byte (a match's length extension: 255 more per byte), so 255 times the frame bounds
        /// it: a buffer declaring more is corrupt, whatever its frame holds.
        /// </summary>
        internal static long MaxDecodedLength(int frameLength) => Lz4MaxRatio * frameLength;

        internal const long Lz4MaxRatio = 255;

        /// <summary>
        /// The most a ZSTD frame decodes to per input byte: an RLE block of 128 KiB costs 4 bytes (3 of block header and
        /// the repeated byte), so 32,768 output bytes per input byte bound any frame.
        /// </summary>
        internal const long ZstdMaxRatio = 32768;

        /// <summary>Checks, before the body is read, that every buffer lies inside it, in order, without overlap.</summary>
        public static void CheckExtents(FlatReader reader, in IpcMessage message)
        {
            int failed = FirstMisplaced(reader.Data.Slice(message.Buffers, message.BufferCount * IpcMessageParser.BufferStructSize), message.BodyLength, out long end);
            if (failed < 0)
                return;
            int at = message.Buffers + (failed * IpcMessageParser.BufferStructSize);
            long offset = reader.ReadInt64(at);
            long length = reader.ReadInt64(at + 8);
            if (offset < 0 || length < 0 || offset > message.BodyLength || length > message.BodyLength - offset)
                IpcErrors.Throw(reader.InputOffset(at), $"message metadata, buffer {failed} (offset {offset}, length {length}) lies outside the {message.BodyLength}-byte body");
            IpcErrors.Throw(reader.InputOffset(at), $"message metadata, buffer {failed} (offset {offset}, length {length}) overlaps or precedes the buffer before it, which ends at {end}");
        }

        /// <summary>
        /// The first of the (offset, length) pairs in <paramref name="vector"/> that lies outside a body of
        /// <paramref name="body"/> bytes, or, non-empty, before the end of the non-empty one before it
        /// (<paramref name="end"/>); -1 when every one fits.
        /// </summary>
        private static int FirstMisplaced(ReadOnlySpan<byte> vector, long body, out long end)
        {
            // Read in place without bounds checks (every pair lies inside the verified vector): the loop runs over
            // every buffer of a batch however few are read, and the checks were a visible part of it.
            ref byte first = ref MemoryMarshal.GetReference(vector);
            int count = vector.Length / IpcMessageParser.BufferStructSize;
            end = 0;
            for (int i = 0; i < count; i++)
            {
                long offset = ReadInt64(ref first, i * IpcMessageParser.BufferStructSize);
                long length = ReadInt64(ref first, (i * IpcMessageParser.BufferStructSize) + 8);
                // Unsigned, a negative offset or length is past any body.
                if ((ulong)offset > (ulong)body || (ulong)length > (ulong)(body - offset))
                    return i;
                if (length == 0)
                    continue;
                if (offset < end)
                    return i;
                end = offset + length;
            }
            return -1;
        }

        private static long ReadInt64(ref byte first, int at)
        {
            long value = Unsafe.ReadUnaligned<long>(ref Unsafe.Add(ref first, at));
            return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
        }

        /// <summary>
        /// Reads the length prefixes and fills <paramref name="items"/>, keeping the <see cref="IpcBufferItem.Skipped"/>
        /// the caller set in each (0 for a body read whole); returns the decompressed body length. A buffer
        /// declaring more than <paramref name="maxRatio"/> bytes per compressed byte is refused (LZ4 frames by default).
        /// A body past <paramref name="maxBodyLength"/> is an <see cref="IpcLimitException"/> when
        /// <paramref name="limitException"/> is set (the caller answers it apart from corrupt data).
        /// </summary>
        public static long Compute(FlatReader reader, in IpcMessage message, ReadOnlySpan<byte> body, long bodyOffset, IpcBufferItem[] items, long maxBodyLength, long maxRatio = Lz4MaxRatio, bool limitException = false)
        {
            long total = 0;
            for (int i = 0; i < message.BufferCount; i++)
            {
                int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                int offset = (int)reader.ReadInt64(at);
                int length = (int)reader.ReadInt64(at + 8);
                ref IpcBufferItem item = ref items[i];
                // What a projection skipped before the buffer stays: the offsets below count in the input.
                int skipped = item.Skipped;
                item = default;
                item.Skipped = skipped;
                item.Raw = true;
                long inInput = bodyOffset + skipped + offset;
                if (length > 0)
                {
                    if (length < 8)
                        IpcErrors.Throw(inInput, $"body buffer {i} is {length} byte(s), shorter than its 8-byte uncompressed-length prefix");
                    long declared = BinaryPrimitives.ReadInt64LittleEndian(body.Slice(offset));
                    item.Source = offset + 8;
                    item.SourceLength = length - 8;
                    if (declared == -1)
                    {
                        declared = length - 8;
                    }
                    else if (declared < 0)
                    {
                        IpcErrors.Throw(inInput, $"body buffer {i} declares a negative uncompressed length ({declared})");
                    }
                    else
                    {
                        item.Raw = false;
                        // Refused before the reader allocates it: the frame cannot decode to that many bytes.
                        if (declared > maxRatio * item.SourceLength)
                            IpcErrors.Throw(inInput, $"body buffer {i} declares {declared} uncompressed bytes, more than its {item.SourceLength}-byte {(maxRatio == Lz4MaxRatio ? "LZ4" : "compressed")} frame can decode to");
                    }
                    if (declared > maxBodyLength - Align(total))
                        throw OverLimit(inInput, $"body buffer {i} declares {declared} uncompressed bytes, which takes the decompressed body past the {maxBodyLength}-byte limit", maxBodyLength, limitException);
                    item.Length = (int)declared;
                }
                item.Destination = (int)Align(total);
                total = item.Destination + (long)item.Length;
            }
            long aligned = Align(total);
            if (aligned > maxBodyLength)
                throw OverLimit(bodyOffset, $"the decompressed body ({aligned} bytes) is longer than the {maxBodyLength}-byte limit", maxBodyLength, limitException);
            return aligned;
        }

        private static Exception OverLimit(long offset, string what, long limit, bool limitException)
        {
            System.IO.InvalidDataException e = IpcErrors.At(offset, what);
            return limitException ? new IpcLimitException($"{char.ToUpperInvariant(what[0])}{what.Substring(1)} (byte offset {offset}).", limit, e.InnerException!) : e;
        }

        /// <summary>
        /// Rewrites the metadata in <paramref name="buffer"/> (at <paramref name="start"/>) for the decompressed body and
        /// returns its new length. The batch gets a copy of its vtable, appended after the metadata, without the
        /// compression field; the buffer must have room for it (the vtable size plus 16 bytes).
        /// </summary>
        public static int Rewrite(byte[] buffer, int start, int length, long inputOffset, in IpcMessage message, IpcBufferItem[] items, long bodyLength)
        {
            FlatTable batch = message.Batch;
            CheckNoAliasing(message, inputOffset);
            int vtable = (int)Align(length);
            Span<byte> metadata = buffer.AsSpan(start);
            metadata.Slice(length, vtable - length).Clear();
            metadata.Slice(batch.VTable, batch.VTableSize).CopyTo(metadata.Slice(vtable));
            int compressionSlot = 4 + (2 * IpcMessageParser.RecordBatchCompression);
            if (compressionSlot + 2 <= batch.VTableSize)
                BinaryPrimitives.WriteUInt16LittleEndian(metadata.Slice(vtable + compressionSlot), 0);
            BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(batch.Position), batch.Position - vtable);
            int newLength = (int)Align(vtable + batch.VTableSize);
            metadata.Slice(vtable + batch.VTableSize, newLength - vtable - batch.VTableSize).Clear();

            for (int i = 0; i < message.BufferCount; i++)
            {
                int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(at), items[i].Destination);
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(at + 8), items[i].Length);
            }
            if (message.BodyLengthField >= 0)
                BinaryPrimitives.WriteInt64LittleEndian(metadata.Slice(message.BodyLengthField), bodyLength);

            // CheckNoAliasing covers every byte that the verifier's walk and Arrow read in a batch message but for
            // Message.custom_metadata: without it the result walks as the original did (the batch through an identical
            // vtable, less compression), so only a message with it is verified and read back again (a second walk is
            // a visible share of a tiny batch's read).
            Debug.Assert(message.CustomMetadata || ReadsBack(buffer, start, newLength, inputOffset, message, items, bodyLength));
            if (message.CustomMetadata && !ReadsBack(buffer, start, newLength, inputOffset, message, items, bodyLength))
                ThrowAliased(inputOffset);
            return newLength;
        }

        /// <summary>Whether the rewritten metadata verifies and parses to the new buffers and body length, as Arrow will read it.</summary>
        private static bool ReadsBack(byte[] buffer, int start, int length, long inputOffset, in IpcMessage message, IpcBufferItem[] items, long bodyLength)
        {
            var check = IpcMessageParser.Parse(new FlatReader(buffer, start, length, inputOffset), buffers: true);
            bool same = !check.Compressed && check.BodyLength == bodyLength && check.BufferCount == message.BufferCount;
            ReadOnlySpan<byte> metadata = buffer.AsSpan(start, length);
            for (int i = 0; same && i < message.BufferCount; i++)
            {
                int at = check.Buffers + (i * IpcMessageParser.BufferStructSize);
                same = BinaryPrimitives.ReadInt64LittleEndian(metadata.Slice(at)) == items[i].Destination
                    && BinaryPrimitives.ReadInt64LittleEndian(metadata.Slice(at + 8)) == items[i].Length;
            }
            return same;
        }

        /// <summary>
        /// Hostile metadata can place the fields this rewrite writes (the Buffer structs, bodyLength, the batch's vtable
        /// offset) over fields Arrow reads (nodes, lengths, vtables): writing them would change what Arrow reads.
        /// </summary>
        private static void CheckNoAliasing(in IpcMessage message, long inputOffset)
        {
            FlatTable root = message.Root, batch = message.Batch, dictionary = message.Dictionary;
            // What is read: the root offset, tables with their vtables, and the vectors with their length words.
            Span<(long Start, long End)> read = stackalloc (long, long)[]
            {
                (0, 4),
                (root.VTable, root.VTable + root.VTableSize),
                (root.Position, root.Position + root.TableSize),
                (dictionary.VTable, dictionary.VTable + dictionary.VTableSize),
                (dictionary.Position, dictionary.Position + dictionary.TableSize),
                (batch.VTable, batch.VTable + batch.VTableSize),
                (batch.Position, batch.Position + batch.TableSize),
                (message.Nodes - 4, message.Nodes + (16L * message.NodeCount)),
                (message.Variadic - 4, message.Variadic + (8L * message.VariadicCount)),
                (message.Buffers - 4, message.Buffers),
            };
            long buffersEnd = message.Buffers + ((long)IpcMessageParser.BufferStructSize * message.BufferCount);
            for (int i = 0; i < read.Length; i++)
            {
                (long start, long end) = read[i];
                if (end <= start)
                    continue;
                bool aliased = Overlaps(message.Buffers, buffersEnd, start, end)
                    || (i != 2 && message.BodyLengthField >= 0 && Overlaps(message.BodyLengthField, message.BodyLengthField + 8, start, end))
                    || (i != 6 && Overlaps(batch.Position, batch.Position + 4, start, end));
                if (aliased)
                    ThrowAliased(inputOffset);
            }
        }

        private static bool Overlaps(long start, long end, long otherStart, long otherEnd) => start < otherEnd && otherStart < end && start < end;

        private static void ThrowAliased(long inputOffset) =>
            IpcErrors.Throw(inputOffset, "message metadata, the fields of the batch overlap one another, so it cannot be rewritten for the decompressed body");
    }
}
