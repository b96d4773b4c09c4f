using System.Collections.Generic;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// What the last Schema message of a stream says its batches need, and the check of each batch against it: a batch
    /// listing fewer field nodes or buffers than its schema needs is refused, as Arrow .NET would read past those vectors
    /// (on the original metadata it finds the bytes that follow, on the rewritten metadata other bytes; found by fuzz
    /// --ipc). Shared by <see cref="IpcDecompressingStream"/> and the Flight package. Each schema is verified and laid out
    /// in one walk (<see cref="IpcSchemaVerifier"/>), and the messages are held to the order Arrow .NET reads them in: a
    /// schema first, each dictionary batch of an id the schema names (a delta only after its dictionary), every
    /// dictionary before the first record batch, as Arrow C++'s stream reader requires too.
    /// </summary>
    internal sealed class IpcStreamLayouts
    {
        // The last schema's layout (buffers -1 when not checked); its collections are kept for the next schema.
        private IpcSchemaVerifier.Summary _summary = new IpcSchemaVerifier.Summary { Nodes = -1, Buffers = -1 };

        // The dictionary ids whose dictionary has not come yet.
        private int _missing;
        private bool _schema;

        /// <summary>Verifies a schema and remembers its layout; checks where the other messages come.</summary>
        public void Observe(FlatReader reader, in IpcMessage message)
        {
            int type = message.HeaderType;
            long at = reader.InputOffset(message.Root.Position);
            if (type >= IpcMessageParser.HeaderSchema && type <= IpcMessageParser.HeaderRecordBatch
                && !reader.SubTable(message.Root, IpcMessageParser.MessageHeader, "Message.header").Exists)
                IpcErrors.Throw(at, $"message metadata, a message of header type {type} without its header table");
            if (type == IpcMessageParser.HeaderSchema)
            {
                // A schema that fails leaves nothing checked against it: the stream has failed.
                _summary.Buffers = -1;
                IpcSchemaVerifier.Verify(reader, message.Root, ref _summary);
                _missing = _summary.Dictionaries?.Count ?? 0;
                _schema = true;
                return;
            }
            if (!_schema)
                IpcErrors.Throw(at, $"message metadata, the stream's first message has header type {type}, not a Schema");
            if (type == IpcMessageParser.HeaderDictionaryBatch)
            {
                IpcSchemaVerifier.DictionaryId dictionary = Dictionary(reader, message, at);
                Nodes(reader, message, dictionary.Nodes, $"the dictionary batch of id {message.DictionaryId}");
                Buffers(reader, message, dictionary.Buffers, $"the dictionary batch of id {message.DictionaryId}");
                NullNodes(reader, message, dictionary: true, $"the dictionary batch of id {message.DictionaryId}");
            }
            else if (type == IpcMessageParser.HeaderRecordBatch)
            {
                if (_missing > 0)
                    IpcErrors.Throw(at, $"message metadata, a record batch before the dictionary batch of id {FirstMissing()}, which its schema names");
                Nodes(reader, message, _summary.Nodes, "the record batch");
                Buffers(reader, message, _summary.Buffers, "the record batch");
                NullNodes(reader, message, dictionary: false, "the record batch");
            }
        }

        /// <summary>Forgets every schema, as a new instance would have none: for a stream that takes this one over from a disposed one.</summary>
        public void Reset()
        {
            _summary.Dictionaries?.Clear();
            _summary.NullNodes?.Clear();
            _summary.Nodes = -1;
            _summary.Buffers = -1;
            _missing = 0;
            _schema = false;
        }

        /// <summary>
        /// Takes a schema verified before, with the same bytes, whose layout <see cref="TryCountsOnly"/> gave: as
        /// <see cref="Observe"/> would leave things after it.
        /// </summary>
        public void ObserveVerifiedSchema(int nodes, int buffers)
        {
            _summary.Dictionaries?.Clear();
            _summary.NullNodes?.Clear();
            _summary.Nodes = nodes;
            _summary.Buffers = buffers;
            _missing = 0;
            _schema = true;
        }

        /// <summary>Whether the last schema's layout is only its counts (no dictionary ids, no Null fields), and those counts.</summary>
        public bool TryCountsOnly(out int nodes, out int buffers)
        {
            nodes = _summary.Nodes;
            buffers = _summary.Buffers;
            return _schema && _summary.Dictionaries is not { Count: > 0 } && _summary.NullNodes is not { Count: > 0 };
        }

        // Arrow .NET builds a Null field's array only when its node's null count is its length.
        private void NullNodes(FlatReader reader, in IpcMessage message, bool dictionary, string what)
        {
            if (_summary.NullNodes is not { Count: > 0 } nullNodes || !message.Batch.Exists)
                return;
            (int position, _) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            foreach (IpcSchemaVerifier.NullNode nullNode in nullNodes)
            {
                if (nullNode.Dictionary != dictionary || (dictionary && nullNode.Id != message.DictionaryId))
                    continue;
                int index = nullNode.Index;
                int node = position + (16 * index);
                long length = reader.ReadInt64(node), nulls = reader.ReadInt64(node + 8);
                // Not every writer counts a Null array's nulls, so this is what Arrow .NET cannot read, not invalid data.
                if (length != nulls)
                    throw IpcErrors.NotSupported(reader.InputOffset(node), $"{what}'s node {index}, of a Null field, has length {length} but null count {nulls} (Arrow .NET needs them equal)");
            }
        }

        // Arrow .NET walks a batch's nodes by its schema: it reads past a vector shorter than that, and fails on a longer one.
        private static void Nodes(FlatReader reader, in IpcMessage message, int nodes, string what)
        {
            if (!message.Batch.Exists)
                return;
            (_, int count) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            if (count != nodes)
                IpcErrors.Throw(reader.InputOffset(0), $"message metadata, {what} lists {count} field node(s) but its schema needs {nodes}");
        }

        // Arrow .NET reads a batch's buffers by index too: a vector shorter than the schema needs gives it null entries.
        // Every batch, not only those the stream decodes: one that passes through reaches Arrow's reader the same way.
        private static void Buffers(FlatReader reader, in IpcMessage message, int buffers, string what)
        {
            if (buffers < 0 || !message.Batch.Exists)
                return;
            (_, int count) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchBuffers, IpcMessageParser.BufferStructSize, "RecordBatch.buffers");
            if (count < buffers)
                IpcErrors.Throw(reader.InputOffset(0), $"message metadata, {what} lists {count} buffer(s) but its schema needs {buffers}");
        }

        // The dictionary id of a dictionary batch, which its schema must name.
        private IpcSchemaVerifier.DictionaryId Dictionary(FlatReader reader, in IpcMessage message, long at)
        {
            long id = message.DictionaryId;
            Dictionary<long, IpcSchemaVerifier.DictionaryId>? ids = _summary.Dictionaries;
            if (ids is null || !ids.TryGetValue(id, out IpcSchemaVerifier.DictionaryId state))
            {
                IpcErrors.Throw(at, $"message metadata, a dictionary batch of id {id}, which its schema does not name");
                return default;
            }
            if (state.Seen)
                return state;
            if (reader.UInt8(message.Dictionary, IpcMessageParser.DictionaryBatchIsDelta, 0, "DictionaryBatch.isDelta") != 0)
                IpcErrors.Throw(at, $"message metadata, a delta dictionary batch of id {id} before its dictionary");
            state.Seen = true;
            ids[id] = state;
            _missing--;
            return state;
        }

        private long FirstMissing()
        {
            foreach (KeyValuePair<long, IpcSchemaVerifier.DictionaryId> id in _summary.Dictionaries!)
            {
                if (!id.Value.Seen)
                    return id.Key;
            }
            return 0;
        }

        /// <summary>Refuses a batch whose node or buffer vector is shorter than its schema needs (the nodes must have been read).</summary>
        public void Check(in IpcMessage message, long metadataOffset)
        {
            bool dictionary = message.Dictionary.Exists;
            (int nodes, int buffers) = (_summary.Nodes, _summary.Buffers);
            if (dictionary)
            {
                (nodes, buffers) = (-1, -1);
                if (_summary.Dictionaries is { } ids && ids.TryGetValue(message.DictionaryId, out IpcSchemaVerifier.DictionaryId id) && id.Buffers >= 0)
                    (nodes, buffers) = (id.Nodes, id.Buffers);
            }
            if (buffers >= 0 && (message.NodeCount < nodes || message.BufferCount < buffers))
                IpcErrors.Throw(metadataOffset, $"message metadata, {(dictionary ? $"the dictionary batch of id {message.DictionaryId}" : "the record batch")} lists {message.NodeCount} field node(s) and {message.BufferCount} buffer(s) but its schema needs {nodes} and {buffers}");
        }
    }
}
