using System;
using System.Buffers.Binary;
using System.IO;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The footer of an Arrow IPC file (format/File.fbs), read and checked whole when the file is opened: the magic at
    /// both ends, the footer's length, every block inside the messages' part of the file and none overlapping another,
    /// and the schema, wrapped in a Schema message (<see cref="SchemaMessage"/>) that the IPC stream path verifies as it
    /// verifies any schema.
    /// </summary>
    internal sealed class IpcFileFooter
    {
        /// <summary>The bytes of the Schema message made up in front of the footer's bytes (length prefix and Message table).</summary>
        public const int SchemaSkew = 8 + WrapperLength;

        // File.fbs: Footer { version: short; schema: Schema; dictionaries: [Block]; recordBatches: [Block]; custom_metadata }.
        private const int FooterVersion = 0;
        private const int FooterSchema = 1;
        private const int FooterDictionaries = 2;
        private const int FooterRecordBatches = 3;
        private const int BlockSize = 24;

        // The Message table put in front of the footer: root offset, vtable (4 fields), table.
        private const int WrapperLength = 32;

        private static readonly byte[] s_magic = { (byte)'A', (byte)'R', (byte)'R', (byte)'O', (byte)'W', (byte)'1' };

        private IpcFileFooter(byte[] schemaMessage, long offset, int length, IpcFileBlock[] dictionaries, IpcFileBlock[] recordBatches)
        {
            SchemaMessage = schemaMessage;
            Offset = offset;
            Length = length;
            Dictionaries = dictionaries;
            RecordBatches = recordBatches;
        }

        /// <summary>
        /// A Schema message (continuation marker, length, then a Message table whose header is the footer's Schema
        /// table, then the footer's bytes), as the stream format writes one.
        /// </summary>
        public byte[] SchemaMessage { get; }

        /// <summary>Where the footer starts in the file.</summary>
        public long Offset { get; }

        /// <summary>The footer's length.</summary>
        public int Length { get; }

        public IpcFileBlock[] Dictionaries { get; }

        public IpcFileBlock[] RecordBatches { get; }

        /// <summary>Reads and checks the footer of the file <paramref name="file"/> holds.</summary>
        public static IpcFileFooter Read(IpcFileSource file)
        {
            long length = file.Length;
            // The 8-byte header (magic, padding), then the messages, the footer, its int32 length and the magic.
            Span<byte> ends = stackalloc byte[10];
            if (length < 8 + 10)
                IpcErrors.ThrowTruncated(Math.Max(0, length), "an IPC file's 8-byte header and 10-byte trailer", 18, Math.Max(0, length));
            if (file.ReadAt(0, ends.Slice(0, 6)) < 6 || !ends.Slice(0, 6).SequenceEqual(s_magic))
                IpcErrors.Throw(0, "an IPC file starts with ARROW1, this one does not");
            if (file.ReadAt(length - 10, ends) < 10)
                IpcErrors.ThrowTruncated(length - 10, "the IPC file's trailer", 10, 0);
            if (!ends.Slice(4).SequenceEqual(s_magic))
                IpcErrors.Throw(length - 6, "an IPC file ends with ARROW1, this one does not");
            int footerLength = BinaryPrimitives.ReadInt32LittleEndian(ends);
            if (footerLength <= 0 || footerLength > length - 18 || footerLength > int.MaxValue - SchemaSkew - 8)
                IpcErrors.Throw(length - 10, $"the footer length {footerLength} is not positive or runs before the file's 8-byte header (the file has {length} bytes)");
            long footer = length - 10 - footerLength;

            // The footer is read straight into the Schema message that wraps it.
            int flatLength = (int)Align8(WrapperLength + (long)footerLength);
            byte[] message = new byte[8 + flatLength];
            int got = file.ReadAt(footer, message.AsSpan(SchemaSkew, footerLength));
            if (got < footerLength)
                IpcErrors.ThrowTruncated(footer + got, "the IPC file's footer", footerLength, got);
            var reader = new FlatReader(message, SchemaSkew, footerLength, footer);
            FlatTable root = reader.Root("Footer");
            short version = reader.Int16(root, FooterVersion, 0, "Footer.version");
            FlatTable schema = reader.SubTable(root, FooterSchema, "Footer.schema");
            if (!schema.Exists)
                IpcErrors.Throw(footer, "the IPC file's footer has no schema");
            IpcFileBlock[] dictionaries = Blocks(reader, root, FooterDictionaries, "dictionary", footer);
            IpcFileBlock[] batches = Blocks(reader, root, FooterRecordBatches, "record batch", footer);
            CheckDisjoint(dictionaries, batches);
            Wrap(message, flatLength, version, schema.Position);
            return new IpcFileFooter(message, footer, footerLength, dictionaries, batches);
        }

        /// <summary>
        /// Checks that the message at <paramref name="block"/>, whose <paramref name="got"/> bytes of metadata are in
        /// <paramref name="metadata"/>, is what the footer says: its length prefix and metadata fill the block's
        /// metaDataLength exactly, it is verified whole, of <paramref name="headerType"/>, with the block's body length.
        /// </summary>
        public static IpcMessage CheckMessage(byte[] metadata, int got, in IpcFileBlock block, int headerType, out FlatReader reader)
        {
            if (got < block.MetadataLength)
                IpcErrors.ThrowTruncated(block.Offset + got, $"the metadata of {block.Name}", block.MetadataLength, got);
            int length = BinaryPrimitives.ReadInt32LittleEndian(metadata);
            int prefix = 4;
            if (length == -1)
            {
                length = BinaryPrimitives.ReadInt32LittleEndian(metadata.AsSpan(4));
                prefix = 8;
            }
            if (length <= 0 || length != block.MetadataLength - prefix)
                IpcErrors.Throw(block.Offset, $"{block.Name}: its message says {length} bytes of metadata after a {prefix}-byte prefix, the footer's block {block.MetadataLength} bytes in all");
            reader = new FlatReader(metadata, prefix, length, block.Offset + prefix);
            IpcMessage message;
            try
            {
                message = IpcMessageParser.Parse(reader);
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
            {
                // The walk names the field at fault; the block names the message, as the checks below do.
                throw IpcErrors.At(frame.Kind, frame.Offset, $"{block.Name}: {frame.Detail}", frame.InnerException);
            }
            if (message.HeaderType != headerType)
                IpcErrors.Throw(block.Offset + prefix, $"{block.Name}: its message is of header type {message.HeaderType}, not {headerType}");
            if (message.BodyLength != block.BodyLength)
                IpcErrors.Throw(block.Offset + prefix, $"{block.Name}: its message says a body of {message.BodyLength} bytes, the footer's block {block.BodyLength}");
            return message;
        }

        private static long Align8(long n) => (n + 7) & ~7L;

        private static IpcFileBlock[] Blocks(FlatReader reader, FlatTable root, int field, string kind, long footer)
        {
            (int position, int count) = reader.Vector(root, field, BlockSize, kind == "dictionary" ? "Footer.dictionaries" : "Footer.recordBatches");
            var blocks = new IpcFileBlock[count];
            for (int i = 0; i < count; i++)
            {
                int at = position + (i * BlockSize);
                long offset = reader.ReadInt64(at);
                int metadata = reader.ReadInt32(at + 8);
                long body = reader.ReadInt64(at + 16);
                var block = new IpcFileBlock(offset, metadata, body, $"{kind} block {i} of the footer", reader.InputOffset(at));
                // Each part is checked before it is added, so no sum overflows.
                if (offset < 8 || offset > footer || metadata < 8 || metadata > footer - offset || body < 0 || body > footer - offset - metadata)
                    IpcErrors.Throw(block.FooterEntry, $"{block.Name} (offset {offset}, metaDataLength {metadata}, bodyLength {body}) does not lie inside the file's messages, bytes 8 to {footer}");
                blocks[i] = block;
            }
            return blocks;
        }

        private static void CheckDisjoint(IpcFileBlock[] dictionaries, IpcFileBlock[] batches)
        {
            var all = new IpcFileBlock[dictionaries.Length + batches.Length];
            dictionaries.CopyTo(all, 0);
            batches.CopyTo(all, dictionaries.Length);
            var offsets = new long[all.Length];
            for (int i = 0; i < all.Length; i++)
                offsets[i] = all[i].Offset;
            Array.Sort(offsets, all);
            for (int i = 1; i < all.Length; i++)
            {
                if (all[i].Offset < all[i - 1].End)
                    IpcErrors.Throw(all[i].FooterEntry, $"{all[i].Name} (bytes {all[i].Offset} to {all[i].End}) overlaps {all[i - 1].Name} (bytes {all[i - 1].Offset} to {all[i - 1].End})");
            }
        }

        /// <summary>Writes the length prefix and a Message table (version, header type Schema, header: the footer's schema) in front of the footer's bytes.</summary>
        private static void Wrap(byte[] message, int flatLength, short version, int schemaPosition)
        {
            Span<byte> m = message;
            BinaryPrimitives.WriteInt32LittleEndian(m, -1);
            BinaryPrimitives.WriteInt32LittleEndian(m.Slice(4), flatLength);
            Span<byte> flat = m.Slice(8);
            BinaryPrimitives.WriteUInt32LittleEndian(flat, 16);          // root: the table at 16
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(4), 12); // vtable at 4: its size,
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(6), 12); // the table's size,
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(8), 8);  // version at 8,
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(10), 10); // header_type at 10,
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(12), 4); // header at 4,
            BinaryPrimitives.WriteUInt16LittleEndian(flat.Slice(14), 0); // bodyLength absent (0)
            BinaryPrimitives.WriteInt32LittleEndian(flat.Slice(16), 12); // the table: its vtable 12 bytes before it
            BinaryPrimitives.WriteUInt32LittleEndian(flat.Slice(20), (uint)(WrapperLength + schemaPosition - 20));
            BinaryPrimitives.WriteInt16LittleEndian(flat.Slice(24), version);
            flat[26] = IpcMessageParser.HeaderSchema;
        }
    }
}
