namespace ArrowLz4Fast.Ipc
{
    /// <summary>What <see cref="IpcMessageParser"/> found in one message's metadata.</summary>
    internal struct IpcMessage
    {
        /// <summary>The body is LZ4_FRAME-compressed buffer by buffer: the stream decodes it; otherwise it passes through.</summary>
        public bool Lz4;

        /// <summary>The batch has a BodyCompression, of any codec.</summary>
        public bool Compressed;

        /// <summary>Message.header_type: 1 Schema, 2 DictionaryBatch, 3 RecordBatch.</summary>
        public int HeaderType;

        /// <summary>The declared body length (checked: 0 or more).</summary>
        public long BodyLength;

        /// <summary>The Message has a custom_metadata field (the rewrite then reads its result back: <see cref="IpcBodyLayout.Rewrite"/>).</summary>
        public bool CustomMetadata;

        /// <summary>Position of the Message's bodyLength field in the metadata; -1 when absent (0).</summary>
        public int BodyLengthField;

        /// <summary>The RecordBatch table (of the message or of its DictionaryBatch).</summary>
        public FlatTable Batch;

        /// <summary>Position of the first Buffer struct in the metadata, and their count.</summary>
        public int Buffers;

        public int BufferCount;

        /// <summary>The Message table and, for a dictionary batch, the DictionaryBatch table.</summary>
        public FlatTable Root;

        public FlatTable Dictionary;

        /// <summary>DictionaryBatch.id, for a dictionary batch.</summary>
        public long DictionaryId;

        /// <summary>The FieldNode vector and the variadicBufferCounts vector (first element, count), which Arrow reads too.</summary>
        public int Nodes;

        public int NodeCount;

        public int Variadic;

        public int VariadicCount;
    }
}
