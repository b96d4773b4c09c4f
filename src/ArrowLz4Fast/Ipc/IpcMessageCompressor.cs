using System;
using System.Buffers;
using System.Buffers.Binary;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Compresses the body of one uncompressed IPC record or dictionary batch message (the metadata and body of a
    /// Flight <c>FlightData</c>) as Arrow writers do with LZ4_FRAME: every buffer becomes its 8-byte little-endian
    /// uncompressed length and one frame of independent blocks, at the next 8-byte aligned offset; a buffer that does
    /// not save <c>minSpaceSavings</c> goes raw behind the length -1 (Arrow C++'s <c>IpcWriteOptions.min_space_savings</c>);
    /// an empty buffer stays empty, with no prefix (as Arrow C++ writes it). The buffers of a message compress in
    /// parallel through <see cref="Lz4FrameEncoder.TryEncodeBatch"/>.
    /// </summary>
    internal static class IpcMessageCompressor
    {
        private const int PrefixLength = 8;
        private const long NoCompression = -1;

        /// <summary>
        /// Compresses a message; <see langword="false"/> (outputs default) when there is nothing to compress: a Schema
        /// or other non-batch message, a batch already compressed (any codec), no buffers or an empty body, or no buffer
        /// that saves <paramref name="minSpaceSavings"/> (then the message is smaller as it is, and any reader reads it).
        /// The outputs are new arrays the caller owns, never reused.
        /// </summary>
        /// <param name="metadata">The flatbuffer <c>Message</c>, with no continuation marker or length prefix.</param>
        /// <param name="body">Its body (at least the declared bodyLength bytes; more are ignored).</param>
        /// <param name="options">Frame settings (block size, level, checksums) and parallelism.</param>
        /// <param name="minSpaceSavings">0 to 1: a buffer is sent raw when 1 - frame length / buffer length is below it.</param>
        /// <param name="compressedMetadata">The new metadata.</param>
        /// <param name="compressedBody">The new body.</param>
        /// <exception cref="System.IO.InvalidDataException">The metadata is malformed, or the body shorter than it declares.</exception>
        internal static bool TryCompress(ReadOnlySpan<byte> metadata, ReadOnlySpan<byte> body, Lz4FastOptions options, double minSpaceSavings,
            out ReadOnlyMemory<byte> compressedMetadata, out ReadOnlyMemory<byte> compressedBody)
        {
            if (options is null) throw new ArgumentNullException(nameof(options));
            if (!(minSpaceSavings >= 0 && minSpaceSavings <= 1))
                throw new ArgumentOutOfRangeException(nameof(minSpaceSavings), minSpaceSavings, "The minimum space savings must be 0 to 1.");
            compressedMetadata = default;
            compressedBody = default;

            // FlatReader reads arrays; the metadata is small, and a pooled copy allocates nothing.
            byte[] copy = ArrayPool<byte>.Shared.Rent(metadata.Length);
            IpcBufferItem[]? buffers = null;
            try
            {
                metadata.CopyTo(copy);
                var reader = new FlatReader(copy, 0, metadata.Length, 0);
                IpcMessage message = IpcMessageParser.Parse(reader, buffers: true);
                if ((message.HeaderType != IpcMessageParser.HeaderRecordBatch && message.HeaderType != IpcMessageParser.HeaderDictionaryBatch)
                    || !message.Batch.Exists || message.Compressed || message.BufferCount == 0 || message.BodyLength == 0)
                {
                    return false;
                }
                if (message.BodyLength > body.Length)
                    IpcErrors.Throw(reader.InputOffset(message.BodyLengthField), $"message metadata, Message.bodyLength declares {message.BodyLength} bytes but the body holds {body.Length}");
                IpcBodyLayout.CheckExtents(reader, message);
                var vectors = default(IpcCompressedMetadata.Vectors);
                vectors.Length = reader.Int64(message.Batch, IpcMessageParser.RecordBatchLength, 0, "RecordBatch.length");
                (vectors.Nodes, vectors.NodeCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
                (vectors.Variadic, vectors.VariadicCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");

                buffers = ArrayPool<IpcBufferItem>.Shared.Rent(message.BufferCount);
                long bodyLength = CompressBody(reader, message, body, options, minSpaceSavings, buffers, out byte[]? output);
                if (output is null)
                    return false;
                compressedMetadata = IpcCompressedMetadata.Write(metadata, reader, message, vectors, buffers, bodyLength);
                compressedBody = output;
                return true;
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(copy);
                if (buffers is not null)
                    ArrayPool<IpcBufferItem>.Shared.Return(buffers);
            }
        }

        /// <summary>
        /// Encodes every non-empty buffer into a slot of pooled scratch, then lays the body out (into a new array of its
        /// exact length) and fills <paramref name="buffers"/> with each buffer's new offset and length; no output when
        /// no buffer saves enough.
        /// </summary>
        private static long CompressBody(FlatReader reader, in IpcMessage message, ReadOnlySpan<byte> body, Lz4FastOptions options, double minSpaceSavings,
            IpcBufferItem[] buffers, out byte[]? output)
        {
            output = null;
            Lz4FrameEncoderOptions encoder = options.EncoderOptions(null);
            int count = message.BufferCount;
            Lz4FrameBatchItem[] items = ArrayPool<Lz4FrameBatchItem>.Shared.Rent(count);
            int[] written = ArrayPool<int>.Shared.Rent(count);
            byte[]? scratch = null;
            try
            {
                int n = 0;
                long slots = 0;
                for (int i = 0; i < count; i++)
                {
                    int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                    ref IpcBufferItem buffer = ref buffers[i];
                    buffer = default;
                    buffer.Source = (int)reader.ReadInt64(at);
                    buffer.SourceLength = (int)reader.ReadInt64(at + 8);
                    if (buffer.SourceLength == 0)
                        continue;
                    long room = Lz4FrameEncoder.GetMaxEncodedLength(buffer.SourceLength, encoder);
                    if (slots + room > IpcDecompressingStream.DefaultMaxBodyLength)
                        return 0;    // frames this large would not fit one array: the message goes as it is
                    items[n++] = new Lz4FrameBatchItem(buffer.Source, buffer.SourceLength, (int)slots, (int)room);
                    slots += room;
                }
                scratch = ArrayPool<byte>.Shared.Rent((int)slots);
                if (!Lz4FrameEncoder.TryEncodeBatch(body, scratch, items.AsSpan(0, n), written, encoder))
                    throw new InvalidOperationException("An LZ4 frame did not fit its worst-case length.");

                long total = 0;
                int compressed = 0;
                for (int i = 0, k = 0; i < count; i++)
                {
                    ref IpcBufferItem buffer = ref buffers[i];
                    buffer.Destination = (int)IpcBodyLayout.Align(total);
                    if (buffer.SourceLength == 0)
                        continue;
                    // Arrow C++'s rule: raw when the space saved, 1 - compressed / uncompressed, is below the minimum.
                    buffer.Raw = 1.0 - ((double)written[k] / buffer.SourceLength) < minSpaceSavings;
                    if (!buffer.Raw)
                        compressed++;
                    buffer.Length = PrefixLength + (buffer.Raw ? buffer.SourceLength : written[k]);
                    k++;
                    total = buffer.Destination + (long)buffer.Length;
                }
                total = IpcBodyLayout.Align(total);
                if (compressed == 0 || total > IpcDecompressingStream.DefaultMaxBodyLength)
                    return 0;

                output = new byte[total];
                for (int i = 0, k = 0; i < count; i++)
                {
                    ref IpcBufferItem buffer = ref buffers[i];
                    if (buffer.SourceLength == 0)
                        continue;
                    Span<byte> target = output.AsSpan(buffer.Destination, buffer.Length);
                    BinaryPrimitives.WriteInt64LittleEndian(target, buffer.Raw ? NoCompression : buffer.SourceLength);
                    ReadOnlySpan<byte> content = buffer.Raw
                        ? body.Slice(buffer.Source, buffer.SourceLength)
                        : scratch.AsSpan(items[k].DestinationOffset, written[k]);
                    content.CopyTo(target.Slice(PrefixLength));
                    k++;
                }
                return total;
            }
            finally
            {
                ArrayPool<Lz4FrameBatchItem>.Shared.Return(items);
                ArrayPool<int>.Shared.Return(written);
                if (scratch is not null)
                    ArrayPool<byte>.Shared.Return(scratch);
            }
        }
    }
}
