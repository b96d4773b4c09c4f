using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// The LZ4 buffers of real IPC streams, as Arrow hands them to a codec (the frame after the 8-byte length prefix,
    /// with that length), and the reference output hash. Read without Apache.Arrow, so the frame package's tests use
    /// real producers' frames too: the IPC message framing is walked here and each buffer is taken where the corpus
    /// sidecar says it is. ArrowLz4Fast.Tests checks that this is what Arrow's reader hands over (Codec/CorpusBuffersTests).
    /// </summary>
    internal static class CorpusBuffers
    {
        public static List<(byte[] Frame, int Length, string Sha256)> Of(string committedFile) => OfPath(Corpus.Committed(committedFile));

        public static List<(byte[] Frame, int Length, string Sha256)> OfPath(string path)
        {
            byte[] data = File.ReadAllBytes(path);
            JsonElement sidecar = Corpus.Sidecar(path);
            List<ReadOnlyMemory<byte>> bodies = MessageBodies(data);
            var buffers = new List<(byte[], int, string)>();
            foreach (JsonElement message in sidecar.GetProperty("messages").EnumerateArray())
            {
                if (message.GetProperty("codec").GetString() != "lz4_frame")
                    continue;
                ReadOnlyMemory<byte> body = bodies[message.GetProperty("index").GetInt32()];
                foreach (JsonElement buffer in message.GetProperty("buffers").EnumerateArray())
                {
                    int offset = buffer.GetProperty("offset").GetInt32();
                    int length = buffer.GetProperty("length").GetInt32();
                    long uncompressed = buffer.GetProperty("uncompressed_length").GetInt64();
                    // Arrow's reader calls no codec for an empty buffer or one stored raw (prefix -1).
                    if (length == 0 || uncompressed < 0)
                        continue;
                    byte[] frame = body.Slice(offset + 8, length - 8).ToArray();
                    buffers.Add((frame, checked((int)uncompressed), buffer.GetProperty("sha256").GetString()!));
                }
            }
            return buffers;
        }

        /// <summary>The frames of every committed LZ4 IPC stream and file whose path starts with a folder such as "ipc/rust/".</summary>
        public static IEnumerable<byte[]> Frames(string folder) =>
            Corpus.CommittedIpcFiles()
                .Where(f => f.StartsWith(folder, StringComparison.Ordinal) && !f.Contains("zstd", StringComparison.Ordinal))
                .SelectMany(f => Of(f).Select(b => b.Frame));

        /// <summary>Buffers of every producer profile: pyarrow linked 64 KiB blocks (and uncompressed blocks), Java 4 MiB blocks with content checksums, arrow-rs single-block frames.</summary>
        public static List<(byte[] Frame, int Length, string Sha256)> AllProfiles()
        {
            var all = new List<(byte[], int, string)>();
            foreach (string file in new[] { "ipc/pyarrow/strings.arrows", "ipc/pyarrow/incompressible.arrows", "ipc/java/strings.arrows", "ipc/java/empty.arrows", "ipc/rust/nested_dict.arrows" })
                all.AddRange(Of(file));
            return all;
        }

        public static bool IsLinkedMultiBlock(byte[] frame)
        {
            if (frame.Length == 0)
                return false;
            var reader = new Lz4FrameReader(frame);
            int blocks = 0;
            bool linked = false;
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    linked = reader.Frame.IsLinked;
                else if (reader.TokenType == Lz4FrameTokenType.Block)
                    blocks++;
            }
            return linked && blocks > 1;
        }


        public static int IndependentBlocks(byte[] frame)
        {
            try
            {
                var reader = new Lz4FrameReader(frame, verifyChecksums: false);
                int most = 0, blocks = 0;
                bool independent = false;
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    {
                        independent = !reader.Frame.IsLinked;
                        blocks = 0;
                    }
                    else if (reader.TokenType == Lz4FrameTokenType.Block && independent)
                    {
                        most = Math.Max(most, ++blocks);
                    }
                }
                return most;
            }
            catch (InvalidDataException)
            {
                return 0;
            }
        }

        /// <summary>
        /// Every message's body in file order (index 0 is the schema's), for the stream format and for the file format
        /// after its magic. A message is [0xFFFFFFFF] int32 metadata length, the flatbuffer Message, then bodyLength bytes.
        /// </summary>
        private static List<ReadOnlyMemory<byte>> MessageBodies(byte[] data)
        {
            var bodies = new List<ReadOnlyMemory<byte>>();
            int position = data.AsSpan().StartsWith("ARROW1"u8) ? 8 : 0;
            while (position + 4 <= data.Length)
            {
                int length = BinaryPrimitives.ReadInt32LittleEndian(data.AsSpan(position));
                position += 4;
                if (length == -1)
                {
                    length = BinaryPrimitives.ReadInt32LittleEndian(data.AsSpan(position));
                    position += 4;
                }
                if (length == 0)
                    break;
                long bodyLength = BodyLength(data.AsSpan(position, length));
                position += length;
                bodies.Add(data.AsMemory(position, checked((int)bodyLength)));
                position += (int)bodyLength;
            }
            return bodies;
        }

        /// <summary>Message.bodyLength, the table's fourth field (version, header_type, header, bodyLength), 0 if absent.</summary>
        private static long BodyLength(ReadOnlySpan<byte> message)
        {
            int table = BinaryPrimitives.ReadInt32LittleEndian(message);
            int vtable = table - BinaryPrimitives.ReadInt32LittleEndian(message.Slice(table));
            int vtableSize = BinaryPrimitives.ReadUInt16LittleEndian(message.Slice(vtable));
            const int field = 4 + 2 * 3;
            if (field + 2 > vtableSize)
                return 0;
            int offset = BinaryPrimitives.ReadUInt16LittleEndian(message.Slice(vtable + field));
            return offset == 0 ? 0 : BinaryPrimitives.ReadInt64LittleEndian(message.Slice(table + offset));
        }
    }
}
