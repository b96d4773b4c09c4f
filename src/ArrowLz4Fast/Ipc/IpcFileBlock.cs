namespace ArrowLz4Fast.Ipc
{
    /// <summary>A Block of an IPC file's footer: where a message lies, checked to lie inside the file's messages.</summary>
    internal readonly struct IpcFileBlock
    {
        public IpcFileBlock(long offset, int metadataLength, long bodyLength, string name, long footerEntry)
        {
            Offset = offset;
            MetadataLength = metadataLength;
            BodyLength = bodyLength;
            Name = name;
            FooterEntry = footerEntry;
        }

        /// <summary>Where the message starts in the file (its length prefix).</summary>
        public long Offset { get; }

        /// <summary>The length prefix and the metadata.</summary>
        public int MetadataLength { get; }

        public long BodyLength { get; }

        /// <summary>Where the body starts in the file.</summary>
        public long Body => Offset + MetadataLength;

        public long End => Body + BodyLength;

        /// <summary>The block in errors: "record batch block 3 of the footer".</summary>
        public string Name { get; }

        /// <summary>Where the block's entry lies in the file, for errors about the entry itself.</summary>
        public long FooterEntry { get; }
    }
}
