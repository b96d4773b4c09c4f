using System.Collections.Generic;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// What the last Schema message of a stream says its batches need (<see cref="IpcSchemaLayout"/>), and the check
    /// of each batch against it: a batch listing fewer field nodes or buffers than its schema needs is refused, as
    /// Arrow .NET would read past those vectors. Shared by <see cref="IpcDecompressingStream"/> and the Flight package.
    /// </summary>
    internal sealed class IpcStreamLayouts
    {
        // The field nodes and buffers a record batch of the last schema needs; -1 when not checked.
        private int _nodes = -1;
        private int _buffers = -1;

        // What a dictionary batch of each id the last schema names needs; created at the first schema.
        private Dictionary<long, (int Nodes, int Buffers)>? _dictionaries;

        /// <summary>Remembers a schema's layout; other messages leave it as it is.</summary>
        public void Observe(FlatReader reader, in IpcMessage message)
        {
            if (message.HeaderType == IpcMessageParser.HeaderSchema)
                (_nodes, _buffers) = IpcSchemaLayout.Read(reader, message.Root, _dictionaries ??= new Dictionary<long, (int Nodes, int Buffers)>());
        }

        /// <summary>Refuses a batch whose node or buffer vector is shorter than its schema needs (the nodes must have been read).</summary>
        public void Check(in IpcMessage message, long metadataOffset)
        {
            bool dictionary = message.Dictionary.Exists;
            (int nodes, int buffers) = dictionary ? IpcSchemaLayout.Dictionary(_dictionaries, message.DictionaryId) : (_nodes, _buffers);
            if (nodes >= 0 && (message.NodeCount < nodes || message.BufferCount < buffers))
                IpcErrors.Throw(metadataOffset, $"message metadata, {(dictionary ? $"the dictionary batch of id {message.DictionaryId}" : "the record batch")} lists {message.NodeCount} field node(s) and {message.BufferCount} buffer(s) but its schema needs {nodes} and {buffers}");
        }
    }
}
