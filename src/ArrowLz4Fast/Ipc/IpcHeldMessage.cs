using System;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A whole batch message <see cref="IpcCompressingStream"/> holds until it is queued for the output (the batch
    /// compressing on the helpers, or a slot of <see cref="IpcMessageRing"/>): its array and what the writer parsed
    /// and verified of it. A value, so holding one allocates nothing.
    /// </summary>
    internal readonly struct IpcHeldMessage
    {
        public IpcHeldMessage(byte[] bytes, FlatReader reader, in IpcMessage parsed, int prefixLength, int metadataLength, long inputOffset)
        {
            Bytes = bytes;
            Reader = reader;
            Parsed = parsed;
            PrefixLength = prefixLength;
            MetadataLength = metadataLength;
            InputOffset = inputOffset;
        }

        /// <summary>The message, from its length prefix to the end of its body; <see langword="null"/> when none is held.</summary>
        public readonly byte[] Bytes;

        /// <summary>The metadata's reader, over <see cref="Bytes"/>.</summary>
        public readonly FlatReader Reader;

        public readonly IpcMessage Parsed;

        /// <summary>The length prefix's length: 4, or 8 with the continuation marker.</summary>
        public readonly int PrefixLength;

        public readonly int MetadataLength;

        /// <summary>The input offset of the message's first byte.</summary>
        public readonly long InputOffset;

        /// <summary>The prefix and metadata: where the body starts in <see cref="Bytes"/>.</summary>
        public int Header => PrefixLength + MetadataLength;

        public ReadOnlySpan<byte> Metadata => new(Bytes, PrefixLength, MetadataLength);

        public ReadOnlySpan<byte> Body => new(Bytes, Header, (int)Parsed.BodyLength);
    }
}
