#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The metadata rewrite reads its result back (verifies and parses it again) only for messages with a
    /// Message.custom_metadata, the one part of a batch message its aliasing check does not cover (issue #35). These
    /// tests give every batch message of a real stream such metadata, by re-rooting the message: a new Message table,
    /// with the old fields and a custom_metadata of one KeyValue, placed before the old metadata, whose tables stay
    /// where they were (shifted by a multiple of 8).
    /// </summary>
    public class IpcMessageMetadataRewriteTests
    {
        private const string Strings = "ipc/pyarrow/strings.arrows";

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void Batches_with_message_custom_metadata_read_as_without(int degree)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(Strings));
            byte[] rerooted = Reroot(original, aliasField: -1);
            Assert.NotEqual(original.Length, rerooted.Length);

            List<RecordBatch> official = ArrowData.ReadAll(original, fileFormat: false, new OfficialFactory());
            List<RecordBatch> ours = IpcWrapped.ReadAll(rerooted, IpcWrapped.Options(degree, 1), SlabMemoryAllocator.Shared, factory: null);
            try
            {
                Assert.NotEmpty(ours);
                ArrowData.AssertSame(official, ours);
            }
            finally
            {
                ArrowData.DisposeAll(ours);
                ArrowData.DisposeAll(official);
            }
        }

        /// <summary>
        /// The KeyValue's value string is placed over a field of a Buffer struct (its offset or its length) that the
        /// rewrite changes: the metadata verifies as written, and the string's length word changes when it is
        /// rewritten. Either the read is refused, or every message the wrapper hands the reader still verifies (the new
        /// length happens to make a valid string too). Without the read-back for messages with custom metadata, the
        /// wrapper hands on metadata that does not verify (strings and wide: 'KeyValue.value ... no terminating zero').
        /// </summary>
        [Theory]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/pyarrow/wide.arrows")]
        [InlineData("ipc/java/nested_dict.arrows")]
        public void A_custom_metadata_string_over_the_buffers_is_refused_or_still_verifies_after_the_rewrite(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            IpcMessages.Message before = IpcMessages.Of(original).First(m => m.Body.Length > 0);
            IpcMessages.Message after = IpcMessages.Of(IpcWrapped.Drain(original, IpcWrapped.Options(1), new[] { 0 })).First(m => m.Body.Length > 0);
            (long Offset, long Length)[] oldBuffers = IpcMessages.Buffers(before.Metadata);
            (long Offset, long Length)[] newBuffers = IpcMessages.Buffers(after.Metadata);
            int candidates = 0;
            for (int field = 0; field < 2 * oldBuffers.Length; field++)
            {
                long oldValue = field % 2 == 0 ? oldBuffers[field / 2].Offset : oldBuffers[field / 2].Length;
                long newValue = field % 2 == 0 ? newBuffers[field / 2].Offset : newBuffers[field / 2].Length;
                if ((uint)oldValue == (uint)newValue || oldValue == 0)
                    continue;
                byte[] mutant = Reroot(original, field);
                if (mutant.Length == 0)
                    continue;
                candidates++;
                // The mutant's metadata verifies as it is: the defect appears only in the rewritten metadata.
                foreach (IpcMessages.Message message in IpcMessages.Of(mutant))
                    IpcMessageParser.Parse(new FlatReader(message.Metadata, 0, message.Metadata.Length, 0));
                byte[]? handedOn = null;
                Exception? error = Record.Exception(() => handedOn = IpcWrapped.Drain(mutant, IpcWrapped.Options(2, 1), new[] { 0 }));
                if (error is not null)
                {
                    Assert.IsType<InvalidDataException>(error);
                    continue;
                }
                foreach (IpcMessages.Message message in IpcMessages.Of(handedOn!))
                    IpcMessageParser.Parse(new FlatReader(message.Metadata, 0, message.Metadata.Length, 0));
            }
            Assert.True(candidates > 0, $"{file}: no Buffer field that the rewrite changes can be read as a string");
        }

        /// <summary>
        /// The stream with every batch message re-rooted to carry a Message.custom_metadata. With
        /// <paramref name="aliasField"/> at 0 or more, the first batch's KeyValue value string starts at that field of
        /// its Buffer structs (2i the offset of buffer i, 2i + 1 its length), where the original bytes must make a valid
        /// string; an empty array when they do not.
        /// </summary>
        private static byte[] Reroot(byte[] stream, int aliasField)
        {
            var output = new List<(ReadOnlyMemory<byte>, ReadOnlyMemory<byte>)>();
            bool first = true;
            foreach (IpcMessages.Message message in IpcMessages.Of(stream))
            {
                if (message.Body.Length == 0)
                {
                    output.Add((message.Metadata, message.Body));
                    continue;
                }
                byte[]? metadata = RerootMessage(message.Metadata, first ? aliasField : -1);
                if (metadata is null)
                    return System.Array.Empty<byte>();
                output.Add((metadata, message.Body));
                first = false;
            }
            return IpcMessages.Stream(output);
        }

        // The new head: root offset, Message vtable (5 slots), Message table, custom_metadata vector, KeyValue vtable
        // and table, and two strings; the old metadata follows at Shift.
        private const int VTable = 4;
        private const int Root = 24;
        private const int Vector = 48;
        private const int PairVTable = 56;
        private const int Pair = 64;
        private const int Key = 76;
        private const int Value = 88;
        private const int Shift = 96;

        private static byte[]? RerootMessage(byte[] old, int aliasField)
        {
            var reader = new FlatReader(old, 0, old.Length, 0);
            IpcMessage parsed = IpcMessageParser.Parse(reader, buffers: true);
            FlatTable root = parsed.Root;
            int header = BinaryPrimitives.ReadInt32LittleEndian(old.AsSpan(reader.Field(root, IpcMessageParser.MessageHeader, 4, "header")));
            int headerTable = reader.Field(root, IpcMessageParser.MessageHeader, 4, "header") + header;

            byte[] metadata = new byte[Shift + old.Length];
            Span<byte> m = metadata;
            BinaryPrimitives.WriteInt32LittleEndian(m, Root);
            // Message vtable: 14 bytes, table 24 bytes; version @20, header_type @22, header @4, bodyLength @8, custom_metadata @16.
            ushort[] vtable = { 14, 24, 20, 22, 4, 8, 16 };
            for (int i = 0; i < vtable.Length; i++)
                BinaryPrimitives.WriteUInt16LittleEndian(m.Slice(VTable + (2 * i)), vtable[i]);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Root), Root - VTable);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Root + 4), headerTable + Shift - (Root + 4));
            BinaryPrimitives.WriteInt64LittleEndian(m.Slice(Root + 8), parsed.BodyLength);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Root + 16), Vector - (Root + 16));
            BinaryPrimitives.WriteInt16LittleEndian(m.Slice(Root + 20), reader.Int16(root, IpcMessageParser.MessageVersion, 0, "version"));
            m[Root + 22] = (byte)parsed.HeaderType;

            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Vector), 1);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Vector + 4), Pair - (Vector + 4));
            ushort[] pairVTable = { 8, 12, 4, 8 };
            for (int i = 0; i < pairVTable.Length; i++)
                BinaryPrimitives.WriteUInt16LittleEndian(m.Slice(PairVTable + (2 * i)), pairVTable[i]);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Pair), Pair - PairVTable);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Pair + 4), Key - (Pair + 4));
            int value = Value;
            if (aliasField >= 0)
            {
                // The field read as a string's length word, with its bytes and a zero after them.
                int at = parsed.Buffers + (aliasField * 8);
                uint length = BinaryPrimitives.ReadUInt32LittleEndian(old.AsSpan(at));
                if (at + 4L + length >= old.Length || old[at + 4 + (int)length] != 0)
                    return null;
                value = at + Shift;
            }
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(Pair + 8), value - (Pair + 8));
            WriteString(m.Slice(Key), "k");
            WriteString(m.Slice(Value), "v");
            old.CopyTo(m.Slice(Shift));
            return metadata;
        }

        private static void WriteString(Span<byte> at, string text)
        {
            BinaryPrimitives.WriteInt32LittleEndian(at, text.Length);
            for (int i = 0; i < text.Length; i++)
                at[4 + i] = (byte)text[i];
            at[4 + text.Length] = 0;
        }
    }
}
#endif
