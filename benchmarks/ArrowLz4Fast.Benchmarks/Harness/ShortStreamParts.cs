using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The parts of IpcDecompressingStream's work on a one-batch stream (schema, one LZ4 batch, end marker), each on
    /// its own, for the short-stream probe: the schema's two walks (structure, then what it says), the batch's parse and
    /// checks, making and disposing the stream, draining it without Arrow's reader, and the LZ4 decoding of its buffers
    /// alone. Each part runs hot, over and over, so it costs less here than once in a stream among other code.
    /// </summary>
    public static class ShortStreamParts
    {
        /// <summary>The parts of reading <paramref name="stream"/>; <paramref name="versions"/> are copies with other schema bytes, more than a thread keeps, drained in turn.</summary>
        public static IReadOnlyList<(string Name, Action Run)> Of(byte[] stream, byte[][] versions)
        {
            FlatReader schema = Metadata(stream, 0, out int next);
            IpcMessage schemaMessage = IpcMessageParser.Parse(schema);
            FlatReader batch = Metadata(stream, next, out int body);
            IpcMessage batchMessage = IpcMessageParser.Parse(batch);
            var layouts = new IpcStreamLayouts();
            layouts.Observe(schema, schemaMessage);
            var summary = default(IpcSchemaVerifier.Summary);
            var frames = new List<(int Offset, int Length)>();
            for (int i = 0; i < batchMessage.BufferCount; i++)
            {
                long offset = batch.ReadInt64(batchMessage.Buffers + (16 * i)), length = batch.ReadInt64(batchMessage.Buffers + (16 * i) + 8);
                // An 8-byte uncompressed-length prefix, then the frame; -1 marks a buffer stored raw.
                if (length > 8 && BinaryPrimitives.ReadInt64LittleEndian(stream.AsSpan(body + (int)offset)) != -1)
                    frames.Add((body + (int)offset + 8, (int)length - 8));
            }
            byte[] output = new byte[1 << 20];
            int turn = 0;
            return new (string, Action)[]
            {
                ("schema: structure walk", () => IpcMessageParser.Parse(schema)),
                ("schema: what it says", () => IpcSchemaVerifier.Verify(schema, schemaMessage.Root, ref summary)),
                ("batch: parse", () => IpcMessageParser.Parse(batch)),
                ("batch: checks", () =>
                {
                    layouts.Observe(batch, batchMessage);
                    layouts.Check(batchMessage, 0);
                    IpcBodyLayout.CheckExtents(batch, batchMessage);
                }),
                ("make and dispose", () => new IpcDecompressingStream(new MemoryStream(stream, false)).Dispose()),
                ("drain, cached schema", () => Drain(stream, output)),
                ("drain, new schema", () => Drain(versions[turn++ % versions.Length], output)),
                ("LZ4 frames only", () =>
                {
                    int at = 0;
                    foreach ((int offset, int length) in frames)
                    {
                        Lz4FrameDecoder.Decode(stream.AsSpan(offset, length), output.AsSpan(at), out _, out int written);
                        at += written;
                    }
                }),
            };
        }

        private static void Drain(byte[] bytes, byte[] output)
        {
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, false));
            while (stream.Read(output, 0, output.Length) > 0)
            {
            }
        }

        // The message at position: its metadata, and where its body starts (next: where the message after it starts).
        private static FlatReader Metadata(byte[] stream, int position, out int bodyOrNext)
        {
            int prefix = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(position)) == -1 ? 8 : 4;
            int length = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(position + prefix - 4));
            int start = position + prefix;
            var reader = new FlatReader(stream, start, length, start);
            bodyOrNext = start + length;
            return reader;
        }
    }
}
