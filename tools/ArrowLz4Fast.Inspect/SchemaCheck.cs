using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>
    /// Holds each schema of the input to what ArrowLz4Fast's wrapper verifies (IpcSchemaVerifier, IpcTypeRules: the
    /// same list of accepted values), so the tool calls a schema bad exactly when the wrapper refuses it.
    /// </summary>
    internal static class SchemaCheck
    {
        public static void Verify(byte[] data, IReadOnlyList<IpcMessage> messages)
        {
            var summary = default(IpcSchemaVerifier.Summary);
            foreach (IpcMessage message in messages)
            {
                if (message.Type != IpcMessageType.Schema)
                    continue;
                // The metadata follows the continuation marker and length, or the legacy length alone.
                int metadata = (int)message.Offset + (BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan((int)message.Offset)) == 0xFFFFFFFF ? 8 : 4);
                var reader = new FlatReader(data, metadata, (int)message.BodyOffset - metadata, metadata);
                try
                {
                    Ipc.IpcMessage parsed = IpcMessageParser.Parse(reader);
                    IpcSchemaVerifier.Verify(reader, parsed.Root, ref summary);
                }
                catch (InvalidDataException e)
                {
                    throw new InspectException($"message {message.Index}: {What(e)}", e.InnerException is Frames.Lz4FrameException frame ? frame.Offset : metadata);
                }
                catch (NotSupportedException e)
                {
                    throw new InspectException($"message {message.Index}: ArrowLz4Fast and Arrow .NET cannot read it: {What(e)}", metadata);
                }
            }
        }

        // The wrapper's message says where; InspectException says it again, so only what is kept.
        private static string What(Exception e)
        {
            const string Input = " of the input stream: ";
            int at = e.Message.IndexOf(Input, StringComparison.Ordinal);
            return (at < 0 ? e.Message : e.Message.Substring(at + Input.Length)).TrimEnd('.');
        }
    }
}
