using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Writes the metadata of a message whose body <see cref="IpcMessageCompressor"/> compressed: the original bytes,
    /// unchanged but for two fields (the Message's bodyLength, and the offset to the batch: Message.header or
    /// DictionaryBatch.data), then a new RecordBatch table appended after them with its vectors and a BodyCompression
    /// (LZ4_FRAME, BUFFER). Everything else the message carries (version, custom_metadata, dictionary id and isDelta,
    /// fields this code does not know) stays byte for byte; the old batch table stays behind, unreferenced. Every
    /// field is aligned to its size from the flatbuffer's start, as flatbuffers verifiers (Arrow C++) check.
    /// </summary>
    internal static partial class IpcCompressedMetadata
    {
        private const int VTableLength = 16;
        private const int TableLength = 32;
        private const int CompressionLength = 16;
        private const int NodeStructSize = 16;

        /// <summary>The old batch's vectors Arrow reads, copied into the new table (position 0: absent).</summary>
        internal struct Vectors
        {
            public int Nodes;
            public int NodeCount;
            public int Variadic;
            public int VariadicCount;
            public long Length;
        }

        /// <summary>
        /// Returns the new metadata. <paramref name="buffers"/> holds each buffer's offset (<see cref="IpcBufferItem.Destination"/>)
        /// and length (<see cref="IpcBufferItem.Length"/>) in the compressed body of <paramref name="bodyLength"/> bytes.
        /// With a <paramref name="prefix"/>, the metadata starts that many bytes into the array (for the stream's length
        /// prefix) and the array is padded to a multiple of 8 bytes.
        /// </summary>
        public static byte[] Write(ReadOnlySpan<byte> original, FlatReader reader, in IpcMessage message, in Vectors vectors, IpcBufferItem[] buffers, long bodyLength, int prefix = 0)
        {
            byte[]? result = null;
            Write(ref result, original, reader, message, vectors, buffers, bodyLength, prefix);
            return result!;
        }

        /// <summary>
        /// The new metadata as an IPC stream carries it, into <paramref name="target"/> (an array the writer keeps): the
        /// continuation marker and the padded length, then the metadata; returns the length written, that prefix included.
        /// </summary>
        public static int WriteFramed(ref byte[]? target, ReadOnlySpan<byte> original, FlatReader reader, in IpcMessage message, IpcBufferItem[] buffers, long bodyLength)
        {
            const int prefix = 8;
            int padded = Write(ref target, original, reader, message, IpcMessageCompressor.ReadVectors(reader, message), buffers, bodyLength, prefix);
            BinaryPrimitives.WriteInt32LittleEndian(target, -1);
            BinaryPrimitives.WriteInt32LittleEndian(target.AsSpan(4), padded - prefix);
            return padded;
        }

        /// <summary>
        /// As <see cref="Write(ReadOnlySpan{byte}, FlatReader, in IpcMessage, in Vectors, IpcBufferItem[], long, int)"/>,
        /// into <paramref name="target"/> when it is long enough (a writer keeps one per stream), else into a new array
        /// of the exact length, or one rented from <paramref name="pool"/>, put there (a target too short is dropped);
        /// returns the length written, the prefix and padding included.
        /// </summary>
        public static int Write(ref byte[]? target, ReadOnlySpan<byte> original, FlatReader reader, in IpcMessage message, in Vectors vectors, IpcBufferItem[] buffers, long bodyLength, int prefix = 0,
            ArrayPool<byte>? pool = null)
        {
            int start = (int)IpcBodyLayout.Align(original.Length);
            int table = start + VTableLength;
            int nodes = table + TableLength;
            int bufferVector = nodes + 8 + (NodeStructSize * vectors.NodeCount);
            int variadic = bufferVector + 8 + (IpcMessageParser.BufferStructSize * message.BufferCount);
            bool hasVariadic = vectors.Variadic != 0;
            int compression = hasVariadic ? variadic + 8 + (8 * vectors.VariadicCount) : variadic;
            long length = (long)compression + CompressionLength;
            if (length > IpcDecompressingStream.DefaultMaxBodyLength)
                IpcErrors.Throw(0, $"message metadata, {message.BufferCount} buffers and {vectors.NodeCount} field nodes do not fit in one metadata array");

            int total = (int)(prefix == 0 ? length : IpcBodyLayout.Align(prefix + length));
            if (target is not null && target.Length >= total)
                target.AsSpan(0, total).Clear();    // what is not written below is padding, zero as in a new array
            else if (pool is null)
                target = new byte[total];
            else
                target = Rented(pool, total);
            byte[] result = target;
            Span<byte> span = result.AsSpan(prefix, (int)length);
            original.CopyTo(span);

            // The RecordBatch vtable: length, nodes, buffers, compression and (when the old batch had it) variadicBufferCounts.
            int fields = hasVariadic ? 5 : 4;
            Span<byte> vtable = span.Slice(start);
            BinaryPrimitives.WriteUInt16LittleEndian(vtable, (ushort)(4 + (2 * fields)));
            BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(2), TableLength);
            BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(4 + (2 * IpcMessageParser.RecordBatchLength)), 8);
            BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(4 + (2 * IpcMessageParser.RecordBatchNodes)), 16);
            BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(4 + (2 * IpcMessageParser.RecordBatchBuffers)), 20);
            BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(4 + (2 * IpcMessageParser.RecordBatchCompression)), 24);
            if (hasVariadic)
                BinaryPrimitives.WriteUInt16LittleEndian(vtable.Slice(4 + (2 * IpcMessageParser.RecordBatchVariadicCounts)), 28);

            // The table: soffset to its vtable, 4 bytes of padding so that length is 8-aligned, then the uoffsets.
            BinaryPrimitives.WriteInt32LittleEndian(span.Slice(table), table - start);
            BinaryPrimitives.WriteInt64LittleEndian(span.Slice(table + 8), vectors.Length);
            WriteOffset(span, table + 16, nodes + 4);
            WriteOffset(span, table + 20, bufferVector + 4);
            WriteOffset(span, table + 24, compression + 8);
            if (hasVariadic)
                WriteOffset(span, table + 28, variadic + 4);

            // Vectors: the count 4 bytes before 8-aligned elements.
            CopyVector(original, span, vectors.Nodes, vectors.NodeCount, NodeStructSize, nodes);
            BinaryPrimitives.WriteInt32LittleEndian(span.Slice(bufferVector + 4), message.BufferCount);
            for (int i = 0; i < message.BufferCount; i++)
            {
                int at = bufferVector + 8 + (i * IpcMessageParser.BufferStructSize);
                BinaryPrimitives.WriteInt64LittleEndian(span.Slice(at), buffers[i].Destination);
                BinaryPrimitives.WriteInt64LittleEndian(span.Slice(at + 8), buffers[i].Length);
            }
            if (hasVariadic)
                CopyVector(original, span, vectors.Variadic, vectors.VariadicCount, 8, variadic);

            // BodyCompression { codec: LZ4_FRAME, method: BUFFER }, both written although they are the defaults.
            BinaryPrimitives.WriteUInt16LittleEndian(span.Slice(compression), 8);
            BinaryPrimitives.WriteUInt16LittleEndian(span.Slice(compression + 2), 8);
            BinaryPrimitives.WriteUInt16LittleEndian(span.Slice(compression + 4 + (2 * IpcMessageParser.CompressionCodec)), 4);
            BinaryPrimitives.WriteUInt16LittleEndian(span.Slice(compression + 4 + (2 * IpcMessageParser.CompressionMethod)), 5);
            BinaryPrimitives.WriteInt32LittleEndian(span.Slice(compression + 8), 8);
            span[compression + 12] = IpcMessageParser.CodecLz4Frame;
            span[compression + 13] = IpcMessageParser.MethodBuffer;

            // The two fields changed in place: the offset to the batch (forward, to the new table) and bodyLength.
            int pointer = message.Dictionary.Exists
                ? reader.Field(message.Dictionary, IpcMessageParser.DictionaryBatchData, 4, "DictionaryBatch.data")
                : reader.Field(message.Root, IpcMessageParser.MessageHeader, 4, "Message.header");
            WriteOffset(span, pointer, table);
            BinaryPrimitives.WriteInt64LittleEndian(span.Slice(message.BodyLengthField), bodyLength);

            // Read back only when a written field may overlap one a reader reads: otherwise it walks as the original did.
            bool aliased = WritesAlias(reader, message, pointer);
            Debug.Assert(aliased || ReadsBack(reader, message, vectors, new FlatReader(result, prefix, (int)length, 0), table, bodyLength));
            if (aliased && !ReadsBack(reader, message, vectors, new FlatReader(result, prefix, (int)length, 0), table, bodyLength))
                IpcErrors.Throw(0, "message metadata, the fields of the message overlap one another, so it cannot be rewritten for the compressed body");
            return total;
        }

        /// <summary>An array from the pool, its first <paramref name="length"/> bytes zeroed: it holds what it held before.</summary>
        private static byte[] Rented(ArrayPool<byte> pool, int length)
        {
            byte[] array = pool.Rent(length);
            array.AsSpan(0, length).Clear();
            return array;
        }

        private static void WriteOffset(Span<byte> span, int at, int target) => BinaryPrimitives.WriteUInt32LittleEndian(span.Slice(at), (uint)(target - at));

        private static void CopyVector(ReadOnlySpan<byte> original, Span<byte> span, int from, int count, int elementSize, int to)
        {
            BinaryPrimitives.WriteInt32LittleEndian(span.Slice(to + 4), count);
            if (count > 0)
                original.Slice(from, count * elementSize).CopyTo(span.Slice(to + 8));
        }

        /// <summary>
        /// Hostile metadata can place the two fields written in place over each other or over fields Arrow reads (the
        /// version, the dictionary id): when <see cref="WritesAlias"/> says they may, the result is read back as Arrow
        /// will, and must say what the original said.
        /// </summary>
        private static bool ReadsBack(FlatReader before, in IpcMessage message, in Vectors vectors, FlatReader after, int table, long bodyLength)
        {
            IpcMessage check = IpcMessageParser.Parse(after, buffers: true);
            bool same = check.Lz4 && check.HeaderType == message.HeaderType && check.Batch.Position == table && check.BodyLength == bodyLength
                && check.BufferCount == message.BufferCount && check.NodeCount == vectors.NodeCount && check.VariadicCount == vectors.VariadicCount
                && check.Dictionary.Exists == message.Dictionary.Exists && check.DictionaryId == message.DictionaryId
                && Int16(before, message.Root, IpcMessageParser.MessageVersion) == Int16(after, check.Root, IpcMessageParser.MessageVersion)
                && Raw(before, message.Root, IpcMessageParser.MessageCustomMetadata, 4) == Raw(after, check.Root, IpcMessageParser.MessageCustomMetadata, 4)
                && (!message.Dictionary.Exists
                    || Raw(before, message.Dictionary, IpcMessageParser.DictionaryBatchIsDelta, 1) == Raw(after, check.Dictionary, IpcMessageParser.DictionaryBatchIsDelta, 1));
            return same;
        }

        private static short Int16(FlatReader reader, FlatTable table, int index) => reader.Int16(table, index, 0, "Message.version");

        /// <summary>A field's raw bytes (up to 4) as a number, or -1 when absent: compared, not interpreted.</summary>
        private static long Raw(FlatReader reader, FlatTable table, int index, int size)
        {
            int at = reader.Field(table, index, size, "a message field");
            if (at < 0)
                return -1;
            return size == 1 ? reader.UInt8(table, index, 0, "a message field") : (uint)reader.ReadInt32(at);
        }
    }
}
