using System;
using System.Buffers;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Compresses the body of one uncompressed IPC record or dictionary batch message (the metadata and body of a
    /// Flight <c>FlightData</c>) as Arrow writers do with LZ4_FRAME: every buffer becomes its 8-byte little-endian
    /// uncompressed length and one frame of independent blocks, at the next 8-byte aligned offset; a buffer that does
    /// not save <c>minSpaceSavings</c> goes raw behind the length -1 (Arrow C++'s <c>IpcWriteOptions.min_space_savings</c>);
    /// an empty buffer stays empty, with no prefix (as Arrow C++ writes it). The buffers of a message compress in
    /// parallel (<see cref="IpcBodyCompressor"/>, the engine <see cref="IpcCompressingStream"/> shares).
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
            bool compressed = TryCompress(metadata, body, options, minSpaceSavings, rent: false, out IpcCompressedMessage message);
            compressedMetadata = message.Metadata;
            compressedBody = message.Body;
            return compressed;
        }

        /// <summary>
        /// As <see cref="TryCompress(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Lz4FastOptions, double, out ReadOnlyMemory{byte}, out ReadOnlyMemory{byte})"/>;
        /// with <paramref name="rent"/>, the outputs are in arrays rented from <see cref="ArrayPool{T}.Shared"/>, which the
        /// caller gives back (<see cref="IpcCompressedMessage.Return"/>) once nothing reads them.
        /// </summary>
        internal static bool TryCompress(ReadOnlySpan<byte> metadata, ReadOnlySpan<byte> body, Lz4FastOptions options, double minSpaceSavings, bool rent,
            out IpcCompressedMessage compressed)
        {
            if (options is null) throw new ArgumentNullException(nameof(options));
            if (!(minSpaceSavings >= 0 && minSpaceSavings <= 1))
                throw new ArgumentOutOfRangeException(nameof(minSpaceSavings), minSpaceSavings, "The minimum space savings must be 0 to 1.");
            compressed = default;

            // FlatReader reads arrays; the metadata is small, and a pooled copy allocates nothing.
            byte[] copy = ArrayPool<byte>.Shared.Rent(metadata.Length);
            IpcBodyCompressor compressor = Rent();
            byte[]? newMetadata = null, newBody = null;
            try
            {
                metadata.CopyTo(copy);
                var reader = new FlatReader(copy, 0, metadata.Length, 0);
                IpcMessage message = IpcMessageParser.Parse(reader, buffers: true);
                if (!IsCompressible(message))
                    return false;
                if (message.BodyLength > body.Length)
                    IpcErrors.Throw(reader.InputOffset(message.BodyLengthField), $"message metadata, Message.bodyLength declares {message.BodyLength} bytes but the body holds {body.Length}");
                IpcBodyLayout.CheckExtents(reader, message);
                Lz4FrameEncoderOptions encoder = options.EncoderOptions(null);
                if (!compressor.Plan(reader, message, encoder))
                    return false;    // frames this large would not fit one array: the message goes as it is
                compressor.Encode(body, encoder);
                long bodyLength = compressor.Layout(minSpaceSavings);
                // Only the Flight interceptors compress messages one by one.
                compressor.Record(ArrowLz4FastMetrics.TagFlight, message.BodyLength);
                if (bodyLength == 0)
                    return false;
                int metadataLength = IpcCompressedMetadata.Write(ref newMetadata, metadata, reader, message, ReadVectors(reader, message), compressor.Buffers, bodyLength,
                    pool: rent ? ArrayPool<byte>.Shared : null);
                // Written straight into the array the message keeps until it is serialized.
                newBody = rent ? ArrayPool<byte>.Shared.Rent((int)bodyLength) : new byte[bodyLength];
                compressor.WriteBody(body, newBody);
                compressed = new IpcCompressedMessage(newMetadata!, metadataLength, newBody, (int)bodyLength, rent);
                newMetadata = newBody = null;
                return true;
            }
            finally
            {
                if (rent)
                    ReturnRented(newMetadata, newBody);    // a failure after renting: nothing else holds them
                ArrayPool<byte>.Shared.Return(copy);
                Return(compressor);
            }
        }

        /// <summary>A record or dictionary batch with an uncompressed, non-empty body: the messages this compresses.</summary>
        internal static bool IsCompressible(in IpcMessage message) =>
            (message.HeaderType == IpcMessageParser.HeaderRecordBatch || message.HeaderType == IpcMessageParser.HeaderDictionaryBatch)
            && message.Batch.Exists && !message.Compressed && message.BufferCount > 0 && message.BodyLength > 0;

        /// <summary>The batch's vectors the new metadata carries over.</summary>
        internal static IpcCompressedMetadata.Vectors ReadVectors(FlatReader reader, in IpcMessage message)
        {
            var vectors = default(IpcCompressedMetadata.Vectors);
            vectors.Length = reader.Int64(message.Batch, IpcMessageParser.RecordBatchLength, 0, "RecordBatch.length");
            (vectors.Nodes, vectors.NodeCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            (vectors.Variadic, vectors.VariadicCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
            return vectors;
        }

        // One compressor kept per thread: Flight compresses a message at a time on each thread that sends.
        [ThreadStatic]
        private static IpcBodyCompressor? t_compressor;

        private static IpcBodyCompressor Rent()
        {
            IpcBodyCompressor? compressor = t_compressor;
            t_compressor = null;
            return compressor ?? new IpcBodyCompressor();
        }

        private static void ReturnRented(byte[]? metadata, byte[]? body)
        {
            if (metadata is not null)
                ArrayPool<byte>.Shared.Return(metadata);
            if (body is not null)
                ArrayPool<byte>.Shared.Return(body);
        }

        private static void Return(IpcBodyCompressor compressor)
        {
            compressor.ReleaseScratch();
            t_compressor = compressor;
        }
    }
}
