using System.Collections.Generic;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>Message header types of Arrow's Message.fbs MessageHeader union.</summary>
    internal enum IpcMessageType : byte
    {
        None = 0,
        Schema = 1,
        DictionaryBatch = 2,
        RecordBatch = 3,
        Tensor = 4,
        SparseTensor = 5,
    }

    /// <summary>Body compression codecs of Message.fbs (CompressionType).</summary>
    internal enum BodyCodec : sbyte
    {
        None = -1,
        Lz4Frame = 0,
        Zstd = 1,
    }

    /// <summary>One IPC message: where it is, what it holds, and (for batches) its body buffers.</summary>
    internal sealed record IpcMessage(
        int Index,
        long Offset,
        IpcMessageType Type,
        long Rows,
        BodyCodec Codec,
        long BodyOffset,
        long BodyLength,
        long? DictionaryId,
        IReadOnlyList<BodyBuffer> Buffers);

    /// <summary>A buffer entry of a batch: its region of the body, relative to the body start.</summary>
    internal sealed record BodyBuffer(int Index, long Offset, long Length);
}
