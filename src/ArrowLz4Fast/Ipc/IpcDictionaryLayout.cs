namespace ArrowLz4Fast.Ipc
{
    /// <summary>The field nodes and buffers a dictionary batch of <see cref="Id"/> needs; -1 when not checked.</summary>
    internal readonly struct IpcDictionaryLayout
    {
        public IpcDictionaryLayout(long id, int nodes, int buffers)
        {
            Id = id;
            Nodes = nodes;
            Buffers = buffers;
        }

        public long Id { get; }

        public int Nodes { get; }

        public int Buffers { get; }
    }
}
