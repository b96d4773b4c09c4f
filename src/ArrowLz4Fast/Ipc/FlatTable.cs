namespace ArrowLz4Fast.Ipc
{
    /// <summary>A flatbuffer table whose vtable and inline extent were checked to lie inside the buffer.</summary>
    internal readonly struct FlatTable
    {
        public FlatTable(int position, int vtable, int vtableSize, int tableSize)
        {
            Position = position;
            VTable = vtable;
            VTableSize = vtableSize;
            TableSize = tableSize;
        }

        public int Position { get; }

        public int VTable { get; }

        public int VTableSize { get; }

        public int TableSize { get; }

        public bool Exists => TableSize > 0;
    }
}
