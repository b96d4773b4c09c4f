using System;

namespace ArrowLz4Fast.Ipc
{
    internal static partial class IpcCompressedMetadata
    {
        /// <summary>
        /// Whether the two fields written in place (the offset to the batch at <paramref name="pointer"/>, bodyLength)
        /// may overlap each other or anything a reader reads of the original on its way to the batch: the root offset,
        /// the Message and DictionaryBatch tables' vtables, offsets to them and fields. When not, the rewritten metadata
        /// walks as the original did up to the appended batch, and reading it back could only confirm it.
        /// Message.custom_metadata, whose strings anything may overlap, is not followed: a message with it counts as aliased.
        /// </summary>
        private static bool WritesAlias(FlatReader reader, in IpcMessage message, int pointer)
        {
            if (message.CustomMetadata)
                return true;
            FlatTable root = message.Root, dictionary = message.Dictionary;
            bool isDictionary = dictionary.Exists;
            Span<(int Start, int End)> read = stackalloc (int, int)[]
            {
                (0, 4),
                (root.VTable, root.VTable + root.VTableSize),
                (root.Position, root.Position + 4),
                FieldRange(reader, root, IpcMessageParser.MessageVersion, 2),
                FieldRange(reader, root, IpcMessageParser.MessageHeaderType, 1),
                isDictionary ? FieldRange(reader, root, IpcMessageParser.MessageHeader, 4) : default,
                isDictionary ? (dictionary.VTable, dictionary.VTable + dictionary.VTableSize) : default,
                isDictionary ? (dictionary.Position, dictionary.Position + 4) : default,
                isDictionary ? FieldRange(reader, dictionary, IpcMessageParser.DictionaryBatchId, 8) : default,
                isDictionary ? FieldRange(reader, dictionary, IpcMessageParser.DictionaryBatchIsDelta, 1) : default,
            };
            int bodyLength = message.BodyLengthField;
            if (Overlaps(pointer, pointer + 4, bodyLength, bodyLength + 8))
                return true;
            foreach ((int start, int end) in read)
            {
                if (Overlaps(pointer, pointer + 4, start, end) || Overlaps(bodyLength, bodyLength + 8, start, end))
                    return true;
            }
            return false;
        }

        private static (int Start, int End) FieldRange(FlatReader reader, FlatTable table, int index, int size)
        {
            int at = reader.Field(table, index, size, "a message field");
            return at < 0 ? default : (at, at + size);
        }

        private static bool Overlaps(int start, int end, int otherStart, int otherEnd) => start < otherEnd && otherStart < end;
    }
}
