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
        internal const int CodecZstd = 1;
        internal const int MethodBuffer = 0;
        internal const int BufferStructSize = 16;

        /// <summary>
        /// Verifies the whole message (<see cref="IpcMessageVerifier"/>), so nothing reads unverified metadata, and takes
        /// what it needs from that walk; <paramref name="buffers"/> gives the buffer list of an uncompressed batch too.
        /// </summary>
        public static IpcMessage Parse(FlatReader reader, bool buffers = false)
        {
            // Every table, field and vector below was placed and bounds-checked by the verifier's walk (which also
            // places the fields Arrow reads and this does not need: one outside its table could alias what the rewrite
            // changes, fuzz --ipc seed 31); only values are read here.
            IpcMessageVerifier.Verify(reader, out IpcMessage message);
            message.BodyLength = message.BodyLengthField < 0 ? 0 : reader.ReadInt64(message.BodyLengthField);
            if (message.BodyLength < 0)
                IpcErrors.Throw(reader.InputOffset(message.BodyLengthField), $"message metadata, Message.bodyLength is negative ({message.BodyLength})");
            if (message.Dictionary.Exists)
                message.DictionaryId = reader.Int64(message.Dictionary, DictionaryBatchId, 0, "DictionaryBatch.id");

            // As before the walk was shared: the buffer list of an uncompressed batch only when asked for, and the
            // node and variadic vectors only for a batch the stream decodes.
            if (!buffers && !message.Compressed)
                (message.Buffers, message.BufferCount) = (0, 0);
            message.Lz4 &= message.Compressed;
            if (!message.Lz4)
            {
                (message.Nodes, message.NodeCount) = (0, 0);
                (message.Variadic, message.VariadicCount) = (0, 0);
            }
            return message;
        }
    }
}
