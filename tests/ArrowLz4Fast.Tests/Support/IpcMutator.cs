using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Seeded mutations of the metadata and bodies of an IPC stream's messages, for the hostile-input tests and the fuzzer.</summary>
    internal static class IpcMutator
    {
        internal readonly record struct Message(int Start, int Metadata, int MetadataLength, int Body, long BodyLength, bool Lz4);

        /// <summary>The messages of a valid stream (or file), located with the framing and the message parser.</summary>
        public static List<Message> Messages(byte[] bytes)
        {
            var messages = new List<Message>();
            int position = bytes.Length >= 8 && bytes[0] == (byte)'A' && bytes[1] == (byte)'R' && bytes[5] == (byte)'1' ? 8 : 0;
            while (position + 4 <= bytes.Length)
            {
                int length = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(position));
                int prefix = 4;
                if (length == -1)
                {
                    length = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(position + 4));
                    prefix = 8;
                }
                if (length <= 0)
                    break;
                int metadata = position + prefix;
                IpcMessage message = IpcMessageParser.Parse(new FlatReader(bytes, metadata, length, metadata));
                messages.Add(new Message(position, metadata, length, metadata + length, message.BodyLength, message.Lz4));
                position = metadata + length + (int)message.BodyLength;
            }
            return messages;
        }

        private static readonly long[] Interesting = { 0, 1, -1, -2, 7, 8, 9, 255, 65535, 65536, int.MaxValue, int.MinValue, uint.MaxValue, long.MaxValue, long.MinValue, 0x7FFFFFC7, 1L << 40 };

        /// <summary>
        /// A copy of <paramref name="original"/> with one to three bytes of its Schema message's metadata (the first
        /// message) changed, as the issue #34 mutants were: flipped bits, random bytes, or an interesting int32.
        /// </summary>
        public static byte[] MutateSchema(byte[] original, List<Message> messages, Random random, out string what)
        {
            byte[] bytes = (byte[])original.Clone();
            Message schema = messages[0];
            int changes = 1 + random.Next(3);
            what = "schema:";
            for (int i = 0; i < changes; i++)
            {
                int at = schema.Metadata + random.Next(schema.MetadataLength);
                switch (random.Next(3))
                {
                    case 0:
                        bytes[at] ^= (byte)(1 << random.Next(8));
                        what += $" bit flip at {at}";
                        break;
                    case 1:
                        bytes[at] = (byte)random.Next(256);
                        what += $" random byte at {at}";
                        break;
                    default:
                        at = schema.Metadata + (random.Next(schema.MetadataLength) & ~3);
                        if (at + 4 > schema.Metadata + schema.MetadataLength)
                            goto case 1;
                        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(at), (int)Interesting[random.Next(Interesting.Length)]);
                        what += $" int32 at {at}";
                        break;
                }
            }
            return bytes;
        }

        /// <summary>A copy of <paramref name="original"/> with one seeded defect in a message's metadata or body, or truncated.</summary>
        public static byte[] Mutate(byte[] original, List<Message> messages, Random random, out string what)
        {
            byte[] bytes = (byte[])original.Clone();
            if (random.Next(12) == 0)
            {
                int cut = random.Next(bytes.Length);
                what = $"truncated at {cut}";
                return bytes.AsSpan(0, cut).ToArray();
            }
            // Mostly the compressed batches the wrapper rewrites; sometimes any message.
            Message message = messages[random.Next(messages.Count)];
            for (int tries = 0; tries < 8 && !message.Lz4; tries++)
                message = messages[random.Next(messages.Count)];
            bool body = message.BodyLength > 0 && random.Next(3) == 0;
            int start = body ? message.Body : message.Metadata;
            int length = body ? (int)message.BodyLength : message.MetadataLength;
            int kind = random.Next(4);
            int at = start + random.Next(length);
            switch (kind)
            {
                case 0:
                    bytes[at] ^= (byte)(1 << random.Next(8));
                    what = $"bit flip at {at}";
                    break;
                case 1:
                    bytes[at] = (byte)random.Next(256);
                    what = $"random byte at {at}";
                    break;
                case 2:
                    at = start + (random.Next(length) & ~3);
                    if (at + 4 > start + length)
                        goto case 1;
                    BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(at), (int)Interesting[random.Next(Interesting.Length)]);
                    what = $"int32 at {at}";
                    break;
                default:
                    at = start + (random.Next(length) & ~7);
                    if (at + 8 > start + length)
                        goto case 1;
                    BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at), Interesting[random.Next(Interesting.Length)] + (random.Next(2) == 0 ? 0 : random.Next(-3, 4)));
                    what = $"int64 at {at}";
                    break;
            }
            what += body ? " (body)" : " (metadata)";
            return bytes;
        }
    }
}
