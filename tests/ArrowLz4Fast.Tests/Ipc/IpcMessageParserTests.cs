using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="IpcMessageParser.Parse"/> takes the tables and vectors it needs from the verifier's walk (issue #35).
    /// These tests hold it to the parser as it was before, which verified and then followed every offset again
    /// (<see cref="SeparateWalk"/>): the same result on every message of every IPC stream in the corpus, and on
    /// seeded mutants of their metadata the same result or the same error.
    /// </summary>
    public class IpcMessageParserTests
    {
        /// <summary>Every IPC stream and file of the committed corpus, and of ../shared/corpus when it is there.</summary>
        public static IEnumerable<object[]> Streams() =>
            Corpus.CommittedIpcFiles().Select(Corpus.Committed)
                .Concat(Corpus.SharedAvailable ? Directory.EnumerateFiles(Path.Combine(Corpus.SharedDir, "ipc"), "*", SearchOption.AllDirectories) : Enumerable.Empty<string>())
                .Where(path => path.EndsWith(".arrows", StringComparison.Ordinal) || path.EndsWith(".arrow", StringComparison.Ordinal))
                .OrderBy(path => path, StringComparer.Ordinal)
                .Select(path => new object[] { path });

        [Theory]
        [MemberData(nameof(Streams))]
        public void Every_message_parses_as_a_separate_walk_parses_it(string path)
        {
            byte[] bytes = File.ReadAllBytes(path);
            List<IpcMutator.Message> messages = IpcMutator.Messages(bytes);
            Assert.NotEmpty(messages);
            // The messages as written (mostly compressed batches) and as the wrapper hands them on (uncompressed).
            IEnumerable<byte[]> metadata = messages.Select(m => bytes.AsSpan(m.Metadata, m.MetadataLength).ToArray())
                .Concat(IpcMessages.Uncompressed(path).Select(m => m.Metadata));
            int compressed = 0, uncompressed = 0;
            foreach (byte[] m in metadata)
            {
                var reader = new FlatReader(m, 0, m.Length, 0);
                foreach (bool buffers in new[] { false, true })
                {
                    IpcMessage expected = SeparateWalk(reader, buffers);
                    Assert.Equal(expected, IpcMessageParser.Parse(reader, buffers));
                    if (expected.Batch.Exists && buffers)
                        _ = expected.Compressed ? compressed++ : uncompressed++;
                }
            }
            // A stream of only a schema would test little: each has batches (or dictionary batches) but "empty", and
            // the wrapper hands them on uncompressed but ZSTD's, which pass through.
            string counts = $"{path}: {compressed} compressed and {uncompressed} uncompressed batch messages";
            Assert.True(compressed > 0 || path.Contains("empty", StringComparison.Ordinal), counts);
            Assert.True(uncompressed > 0 || path.Contains("empty", StringComparison.Ordinal) || path.Contains("zstd", StringComparison.Ordinal), counts);
        }

        [Theory]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        [InlineData("ipc/java/nested_dict.arrows")]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        public void Mutated_metadata_parses_or_fails_as_a_separate_walk_does(string relative)
        {
            string path = Corpus.Committed(relative);
            byte[] bytes = File.ReadAllBytes(path);
            List<byte[]> messages = IpcMutator.Messages(bytes).Select(m => bytes.AsSpan(m.Metadata, m.MetadataLength).ToArray())
                .Concat(IpcMessages.Uncompressed(path).Select(m => m.Metadata)).ToList();
            var random = new Random(20261127);
            int refused = 0, parsed = 0;
            for (int i = 0; i < 3000; i++)
            {
                byte[] metadata = (byte[])messages[random.Next(messages.Count)].Clone();
                for (int changes = 1 + random.Next(3); changes > 0; changes--)
                {
                    int at = random.Next(metadata.Length);
                    metadata[at] = random.Next(2) == 0 ? (byte)(metadata[at] ^ (1 << random.Next(8))) : (byte)random.Next(256);
                }
                var reader = new FlatReader(metadata, 0, metadata.Length, 0);
                bool buffers = random.Next(2) == 0;
                (IpcMessage Message, string? Error) expected = Try(() => SeparateWalk(reader, buffers));
                (IpcMessage Message, string? Error) actual = Try(() => IpcMessageParser.Parse(reader, buffers));
                Assert.Equal(expected.Error, actual.Error);
                Assert.Equal(expected.Message, actual.Message);
                if (expected.Error is null)
                    parsed++;
                else
                    refused++;
            }
            // Both outcomes are exercised, so the comparison means something either way.
            Assert.True(refused > 100 && parsed > 100, $"{refused} refused, {parsed} parsed");
        }

        private static (IpcMessage, string?) Try(Func<IpcMessage> parse)
        {
            try
            {
                return (parse(), null);
            }
            catch (InvalidDataException e)
            {
                return (default, e.Message);
            }
        }

        /// <summary>The parser before issue #35's one walk (0ade53a), kept here as the reference: verify, then follow every offset again.</summary>
        private static IpcMessage SeparateWalk(FlatReader reader, bool buffers)
        {
            IpcMessageVerifier.Verify(reader);
            var message = default(IpcMessage);
            FlatTable root = reader.Root("Message");
            message.Root = root;
            int headerType = reader.UInt8(root, IpcMessageParser.MessageHeaderType, 0, "Message.header_type");
            message.HeaderType = headerType;
            reader.Field(root, IpcMessageParser.MessageVersion, 2, "Message.version");
            message.BodyLengthField = reader.Field(root, IpcMessageParser.MessageBodyLength, 8, "Message.bodyLength");
            message.CustomMetadata = reader.Field(root, IpcMessageParser.MessageCustomMetadata, 4, "Message.custom_metadata") >= 0;
            message.BodyLength = message.BodyLengthField < 0 ? 0 : reader.ReadInt64(message.BodyLengthField);
            if (message.BodyLength < 0)
                IpcErrors.Throw(reader.InputOffset(message.BodyLengthField), $"message metadata, Message.bodyLength is negative ({message.BodyLength})");

            FlatTable batch;
            if (headerType == IpcMessageParser.HeaderRecordBatch)
            {
                batch = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (RecordBatch)");
            }
            else if (headerType == IpcMessageParser.HeaderDictionaryBatch)
            {
                FlatTable dictionary = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (DictionaryBatch)");
                message.Dictionary = dictionary;
                if (dictionary.Exists)
                {
                    message.DictionaryId = reader.Int64(dictionary, IpcMessageParser.DictionaryBatchId, 0, "DictionaryBatch.id");
                    reader.Field(dictionary, IpcMessageParser.DictionaryBatchIsDelta, 1, "DictionaryBatch.isDelta");
                }
                batch = dictionary.Exists ? reader.SubTable(dictionary, IpcMessageParser.DictionaryBatchData, "DictionaryBatch.data") : default;
            }
            else
            {
                return message;
            }
            if (!batch.Exists)
                return message;

            message.Batch = batch;
            reader.Field(batch, IpcMessageParser.RecordBatchLength, 8, "RecordBatch.length");
            FlatTable compression = reader.SubTable(batch, IpcMessageParser.RecordBatchCompression, "RecordBatch.compression");
            message.Compressed = compression.Exists;
            if (buffers || compression.Exists)
                (message.Buffers, message.BufferCount) = reader.Vector(batch, IpcMessageParser.RecordBatchBuffers, IpcMessageParser.BufferStructSize, "RecordBatch.buffers");
            if (!compression.Exists
                || reader.UInt8(compression, IpcMessageParser.CompressionCodec, IpcMessageParser.CodecLz4Frame, "BodyCompression.codec") != IpcMessageParser.CodecLz4Frame
                || reader.UInt8(compression, IpcMessageParser.CompressionMethod, IpcMessageParser.MethodBuffer, "BodyCompression.method") != IpcMessageParser.MethodBuffer)
                return message;

            (message.Nodes, message.NodeCount) = reader.Vector(batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            (message.Variadic, message.VariadicCount) = reader.Vector(batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
            message.Lz4 = true;
            return message;
        }
    }
}
