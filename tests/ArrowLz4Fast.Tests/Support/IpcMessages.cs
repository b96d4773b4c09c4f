using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>IPC streams as lists of (metadata, body) messages, as Flight carries them, and back.</summary>
    internal static class IpcMessages
    {
        internal readonly record struct Message(byte[] Metadata, byte[] Body, int HeaderType);

        /// <summary>The stream (or file) decompressed by <see cref="IpcDecompressingStream"/> (ZSTD passes through), as messages.</summary>
        public static List<Message> Uncompressed(string path) =>
            Of(IpcWrapped.Drain(File.ReadAllBytes(path), IpcWrapped.Options(1), new[] { 0 }));

        public static List<Message> Of(byte[] stream)
        {
            var messages = new List<Message>();
            foreach (IpcMutator.Message m in IpcMutator.Messages(stream))
            {
                byte[] metadata = stream.AsSpan(m.Metadata, m.MetadataLength).ToArray();
                IpcMessage parsed = IpcMessageParser.Parse(new FlatReader(metadata, 0, metadata.Length, 0));
                messages.Add(new Message(metadata, stream.AsSpan(m.Body, (int)m.BodyLength).ToArray(), parsed.HeaderType));
            }
            return messages;
        }

        /// <summary>An IPC stream of the messages: continuation, 8-byte aligned metadata length, metadata, padding, body; then the end marker.</summary>
        public static byte[] Stream(IEnumerable<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> messages)
        {
            using var output = new MemoryStream();
            Span<byte> prefix = stackalloc byte[8];
            foreach ((ReadOnlyMemory<byte> metadata, ReadOnlyMemory<byte> body) in messages)
            {
                int padded = (metadata.Length + 7) & ~7;
                BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
                BinaryPrimitives.WriteInt32LittleEndian(prefix.Slice(4), padded);
                output.Write(prefix);
                output.Write(metadata.Span);
                output.Write(new byte[padded - metadata.Length]);
                output.Write(body.Span);
            }
            BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
            BinaryPrimitives.WriteInt32LittleEndian(prefix.Slice(4), 0);
            output.Write(prefix);
            return output.ToArray();
        }

        /// <summary>The Buffer structs (offset, length) of a batch message's metadata.</summary>
        public static (long Offset, long Length)[] Buffers(byte[] metadata)
        {
            IpcMessage parsed = IpcMessageParser.Parse(new FlatReader(metadata, 0, metadata.Length, 0), buffers: true);
            var result = new (long, long)[parsed.BufferCount];
            for (int i = 0; i < result.Length; i++)
            {
                int at = parsed.Buffers + (i * IpcMessageParser.BufferStructSize);
                result[i] = (BinaryPrimitives.ReadInt64LittleEndian(metadata.AsSpan(at)), BinaryPrimitives.ReadInt64LittleEndian(metadata.AsSpan(at + 8)));
            }
            return result;
        }
    }
}
