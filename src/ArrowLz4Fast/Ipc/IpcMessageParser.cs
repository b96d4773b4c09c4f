namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Reads the Message flatbuffer (format/Message.fbs) just far enough to know whether its body is LZ4_FRAME
    /// compressed, and checks every field it follows.
    /// </summary>
    internal static class IpcMessageParser
    {
        // Union MessageHeader values, table field indexes and enum values of Message.fbs and Schema.fbs.
        internal const int HeaderSchema = 1;
        internal const int HeaderDictionaryBatch = 2;
        internal const int HeaderRecordBatch = 3;
        internal const int MessageVersion = 0;
        internal const int MessageHeaderType = 1;
        internal const int MessageHeader = 2;
        internal const int MessageBodyLength = 3;
        internal const int MessageCustomMetadata = 4;
        internal const int DictionaryBatchId = 0;
        internal const int DictionaryBatchData = 1;
        internal const int DictionaryBatchIsDelta = 2;
        internal const int RecordBatchLength = 0;
        internal const int RecordBatchNodes = 1;
        internal const int RecordBatchBuffers = 2;
        internal const int RecordBatchVariadicCounts = 4;
        internal const int RecordBatchCompression = 3;
        internal const int CompressionCodec = 0;
        internal const int CompressionMethod = 1;
        internal const int CodecLz4Frame = 0;
        internal const int MethodBuffer = 0;
        internal const int BufferStructSize = 16;

        /// <summary>
        /// Verifies the whole message (<see cref="IpcMessageVerifier"/>), so nothing reads unverified metadata, then parses
        /// it; <paramref name="buffers"/> reads the buffer list of an uncompressed batch too.
        /// </summary>
        public static IpcMessage Parse(FlatReader reader, bool buffers = false)
        {
            IpcMessageVerifier.Verify(reader);
            var message = default(IpcMessage);
            FlatTable root = reader.Root("Message");
            message.Root = root;
            int headerType = reader.UInt8(root, MessageHeaderType, 0, "Message.header_type");
            message.HeaderType = headerType;
            // Fields Arrow reads that the wrapper does not need are still placed: one outside its table could alias what
            // the rewrite changes, and Arrow would read another value through the rewritten metadata (fuzz --ipc, seed 31).
            reader.Field(root, MessageVersion, 2, "Message.version");
            message.BodyLengthField = reader.Field(root, MessageBodyLength, 8, "Message.bodyLength");
            message.CustomMetadata = reader.Field(root, MessageCustomMetadata, 4, "Message.custom_metadata") >= 0;
            message.BodyLength = message.BodyLengthField < 0 ? 0 : reader.ReadInt64(message.BodyLengthField);
            if (message.BodyLength < 0)
                IpcErrors.Throw(reader.InputOffset(message.BodyLengthField), $"message metadata, Message.bodyLength is negative ({message.BodyLength})");

            FlatTable batch;
            if (headerType == HeaderRecordBatch)
            {
                batch = reader.SubTable(root, MessageHeader, "Message.header (RecordBatch)");
            }
            else if (headerType == HeaderDictionaryBatch)
            {
                FlatTable dictionary = reader.SubTable(root, MessageHeader, "Message.header (DictionaryBatch)");
                message.Dictionary = dictionary;
                if (dictionary.Exists)
                {
                    message.DictionaryId = reader.Int64(dictionary, DictionaryBatchId, 0, "DictionaryBatch.id");
                    reader.Field(dictionary, DictionaryBatchIsDelta, 1, "DictionaryBatch.isDelta");
                }
                batch = dictionary.Exists ? reader.SubTable(dictionary, DictionaryBatchData, "DictionaryBatch.data") : default;
            }
            else
            {
                return message;
            }
            if (!batch.Exists)
                return message;

            message.Batch = batch;
            reader.Field(batch, RecordBatchLength, 8, "RecordBatch.length");
            FlatTable compression = reader.SubTable(batch, RecordBatchCompression, "RecordBatch.compression");
            message.Compressed = compression.Exists;
            if (buffers || compression.Exists)
                (message.Buffers, message.BufferCount) = reader.Vector(batch, RecordBatchBuffers, BufferStructSize, "RecordBatch.buffers");
            if (!compression.Exists
                || reader.UInt8(compression, CompressionCodec, CodecLz4Frame, "BodyCompression.codec") != CodecLz4Frame
                || reader.UInt8(compression, CompressionMethod, MethodBuffer, "BodyCompression.method") != MethodBuffer)
                return message;

            (message.Nodes, message.NodeCount) = reader.Vector(batch, RecordBatchNodes, 16, "RecordBatch.nodes");
            (message.Variadic, message.VariadicCount) = reader.Vector(batch, RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
            message.Lz4 = true;
            return message;
        }
    }
}
