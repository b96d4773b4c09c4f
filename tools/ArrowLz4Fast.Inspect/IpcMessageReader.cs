using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Text;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>
    /// Walks the messages of an Arrow IPC stream, or of an IPC file (magic, stream-format messages, footer), without
    /// Apache.Arrow: encapsulation prefixes (continuation marker or legacy length), Message flatbuffers, bodies.
    /// </summary>
    internal static class IpcMessageReader
    {
        private static readonly byte[] FileMagic = Encoding.ASCII.GetBytes("ARROW1");
        private const uint Continuation = 0xFFFFFFFF;

        public static bool IsFileFormat(ReadOnlySpan<byte> data) =>
            data.Length >= 8 && data.Slice(0, 6).SequenceEqual(FileMagic);

        public static List<IpcMessage> ReadAll(ReadOnlyMemory<byte> data)
        {
            ReadOnlySpan<byte> span = data.Span;
            if (data.Length == 0)
                throw new InspectException("the file is empty; an Arrow IPC stream starts with a schema message", 0);
            long position = 0;
            long end = data.Length;
            if (IsFileFormat(span))
            {
                // File layout: "ARROW1" + 2 bytes padding, messages, footer, int32 footer length, "ARROW1".
                if (data.Length < 18 || !span.Slice(data.Length - 6).SequenceEqual(FileMagic))
                    throw new InspectException("the Arrow file does not end with the ARROW1 magic: it is truncated", data.Length);
                int footerLength = BinaryPrimitives.ReadInt32LittleEndian(span.Slice(data.Length - 10));
                if (footerLength <= 0 || footerLength > data.Length - 18)
                    throw new InspectException($"the Arrow file's footer length {footerLength} does not fit in the file", data.Length - 10);
                position = 8;
                end = data.Length - 10 - footerLength;
            }

            var messages = new List<IpcMessage>();
            while (position < end)
            {
                long start = position;
                if (end - position < 4)
                    throw new InspectException($"{end - position} stray bytes where a message length was expected (truncated?)", position);
                uint first = BinaryPrimitives.ReadUInt32LittleEndian(span.Slice((int)position));
                int prefix = 4;
                long metadataLength = first;
                if (first == Continuation)
                {
                    if (end - position < 8)
                        throw new InspectException("the stream ends inside a message length prefix (truncated)", position);
                    metadataLength = BinaryPrimitives.ReadInt32LittleEndian(span.Slice((int)position + 4));
                    prefix = 8;
                }
                if (metadataLength == 0)
                    break; // end-of-stream marker
                if (metadataLength < 0 || metadataLength > end - position - prefix)
                {
                    throw new InspectException(
                        messages.Count == 0 && first != Continuation
                            ? "this is not an Arrow IPC stream or file (no continuation marker, no ARROW1 magic)"
                            : $"message metadata of {metadataLength} bytes runs past the end of the data ({end - position - prefix} bytes left; truncated?)",
                        position);
                }

                long metadataOffset = position + prefix;
                ReadOnlyMemory<byte> metadata = data.Slice((int)metadataOffset, (int)metadataLength);
                IpcMessage message = Parse(messages.Count, start, metadata, metadataOffset, metadataOffset + metadataLength);
                if (message.BodyLength < 0 || message.BodyLength > end - message.BodyOffset)
                {
                    throw new InspectException(
                        $"message {messages.Count} declares a {message.BodyLength}-byte body but only {end - message.BodyOffset} bytes follow (truncated?)",
                        message.BodyOffset);
                }
                foreach (BodyBuffer buffer in message.Buffers)
                {
                    if (buffer.Offset < 0 || buffer.Length < 0 || buffer.Offset > message.BodyLength - buffer.Length)
                    {
                        throw new InspectException(
                            $"message {messages.Count} buffer {buffer.Index} (offset {buffer.Offset}, length {buffer.Length}) lies outside its {message.BodyLength}-byte body",
                            message.BodyOffset);
                    }
                }
                messages.Add(message);
                position = message.BodyOffset + message.BodyLength;
            }
            if (messages.Count == 0)
                throw new InspectException("no messages before the end-of-stream marker", position);
            if (messages[0].Type != IpcMessageType.Schema)
                throw new InspectException($"the first message is a {messages[0].Type}, not a schema: this is not an Arrow IPC stream", messages[0].Offset);
            return messages;
        }

        private static IpcMessage Parse(int index, long start, ReadOnlyMemory<byte> metadata, long metadataOffset, long bodyOffset)
        {
            FlatBufferTable message = FlatBufferTable.Root(metadata, metadataOffset);
            var type = (IpcMessageType)message.GetByte(1);
            long bodyLength = message.GetInt64(3);
            FlatBufferTable? header = message.GetTable(2);
            long rows = 0;
            long? dictionaryId = null;
            var codec = BodyCodec.None;
            var buffers = new List<BodyBuffer>();

            FlatBufferTable? batch = type switch
            {
                IpcMessageType.RecordBatch => header,
                IpcMessageType.DictionaryBatch => header?.GetTable(1),
                _ => null,
            };
            if (type == IpcMessageType.DictionaryBatch && header is FlatBufferTable dictionary)
                dictionaryId = dictionary.GetInt64(0);
            if (type is IpcMessageType.RecordBatch or IpcMessageType.DictionaryBatch && batch is null)
                throw new InspectException($"message {index} is a {type} without its batch table", metadataOffset);
            if (type is < IpcMessageType.Schema or > IpcMessageType.SparseTensor)
                throw new InspectException($"message {index} has unknown header type {(byte)type}", metadataOffset);

            if (batch is FlatBufferTable b)
            {
                rows = b.GetInt64(0);
                if (b.GetTable(3) is FlatBufferTable compression)
                    codec = (BodyCodec)(sbyte)compression.GetByte(0);
                (int start16, int count) = b.GetStructVector(2, 16);
                for (int i = 0; i < count; i++)
                    buffers.Add(new BodyBuffer(i, b.ReadInt64At(start16 + (16 * i)), b.ReadInt64At(start16 + (16 * i) + 8)));
            }
            return new IpcMessage(index, start, type, rows, codec, bodyOffset, bodyLength, dictionaryId, buffers);
        }
    }
}
