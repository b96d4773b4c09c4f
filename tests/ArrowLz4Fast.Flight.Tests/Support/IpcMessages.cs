using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>One IPC message as Flight carries it: the flatbuffer Message (data_header) and the body (data_body).</summary>
    internal sealed record IpcMessageBytes(byte[] Header, byte[] Body);

    /// <summary>Splits an IPC stream into its messages, and joins messages back into a stream.</summary>
    internal static class IpcMessages
    {
        public static List<IpcMessageBytes> Split(byte[] stream)
        {
            var messages = new List<IpcMessageBytes>();
            int position = 0;
            while (position + 4 <= stream.Length)
            {
                int length = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(position));
                position += 4;
                if (length == -1)
                {
                    length = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(position));
                    position += 4;
                }
                if (length == 0)
                    break;
                byte[] header = stream.AsSpan(position, length).ToArray();
                position += length;
                long bodyLength = BodyLength(header);
                byte[] body = stream.AsSpan(position, checked((int)bodyLength)).ToArray();
                position += (int)bodyLength;
                messages.Add(new IpcMessageBytes(header, body));
            }
            return messages;
        }

        public static byte[] Join(IEnumerable<IpcMessageBytes> messages)
        {
            using var output = new MemoryStream();
            Span<byte> prefix = stackalloc byte[8];
            foreach (IpcMessageBytes message in messages)
            {
                if (message.Header.Length == 0)
                    continue;
                int padded = (message.Header.Length + 7) & ~7;
                BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
                BinaryPrimitives.WriteInt32LittleEndian(prefix.Slice(4), padded);
                output.Write(prefix);
                output.Write(message.Header);
                output.Write(new byte[padded - message.Header.Length]);
                output.Write(message.Body.AsSpan(0, checked((int)BodyLength(message.Header))));
            }
            BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
            BinaryPrimitives.WriteInt32LittleEndian(prefix.Slice(4), 0);
            output.Write(prefix);
            return output.ToArray();
        }

        /// <summary>Message.bodyLength (field 3 of the root table), read from the flatbuffer by hand.</summary>
        public static long BodyLength(byte[] header)
        {
            int table = BinaryPrimitives.ReadInt32LittleEndian(header);
            int vtable = table - BinaryPrimitives.ReadInt32LittleEndian(header.AsSpan(table));
            int vtableSize = BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(vtable));
            const int slot = 4 + (2 * 3);
            if (slot + 2 > vtableSize)
                return 0;
            int offset = BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(vtable + slot));
            return offset == 0 ? 0 : BinaryPrimitives.ReadInt64LittleEndian(header.AsSpan(table + offset));
        }

        /// <summary>A serialized FlightData (data_header = 2, app_metadata = 3, data_body = 1000), written by hand.</summary>
        public static byte[] FlightData(byte[] header, byte[] body, byte[]? appMetadata = null)
        {
            using var output = new MemoryStream();
            Field(output, 2, header);
            if (appMetadata is not null)
                Field(output, 3, appMetadata);
            Field(output, 1000, body);
            return output.ToArray();
        }

        private static void Field(Stream output, int number, byte[] value)
        {
            if (value.Length == 0)
                return;
            Varint(output, ((ulong)number << 3) | 2);
            Varint(output, (ulong)value.Length);
            output.Write(value);
        }

        private static void Varint(Stream output, ulong value)
        {
            while (value >= 0x80)
            {
                output.WriteByte((byte)(value | 0x80));
                value >>= 7;
            }
            output.WriteByte((byte)value);
        }
    }
}
