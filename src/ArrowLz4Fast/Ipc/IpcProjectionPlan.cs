using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Text;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// What a projection (<see cref="IpcProjection"/>) keeps of a stream whose schema is known: the selected top-level
    /// fields in schema order, their field nodes and buffers in a record batch, the dictionary ids they use (nested
    /// ones too), and their columns renumbered for the projected batch. It rewrites the schema and each record batch's
    /// metadata in place, after the original message was verified whole.
    /// </summary>
    internal sealed class IpcProjectionPlan
    {
        private const int SchemaFields = 1;
        private const int FieldName = 0;
        private const int FieldDictionary = 4;
        private const int FieldChildren = 5;
        private const int MaxDepth = 64;

        // The kept fields' first node and buffer and their counts, in the original batch, in schema order.
        private readonly int[] _fields;
        private readonly (int Start, int Count)[] _nodes;
        private readonly (int Start, int Count)[] _buffers;
        private readonly HashSet<long> _ids = new HashSet<long>();
        private readonly int _schemaFields;

        private IpcProjectionPlan(int[] fields, int schemaFields, int schemaNodes, int schemaBuffers)
        {
            _fields = fields;
            _schemaFields = schemaFields;
            _nodes = new (int, int)[fields.Length];
            _buffers = new (int, int)[fields.Length];
            SchemaNodes = schemaNodes;
            SchemaBuffers = schemaBuffers;
        }

        /// <summary>Every field of the schema is selected: the stream is read as without a projection.</summary>
        public bool IsAll => _fields.Length == _schemaFields;

        /// <summary>The nodes and buffers of a record batch of the original schema, and of a projected one.</summary>
        public int SchemaNodes { get; }

        public int SchemaBuffers { get; }

        public int Nodes { get; private set; }

        public int Buffers { get; private set; }

        /// <summary>The projected record batch's columns (the fields' tables are the original schema's, in <see cref="IpcSchemaColumns"/>' copy).</summary>
        public IpcSchemaColumns.Layout Layout { get; } = new IpcSchemaColumns.Layout();

        /// <summary>Whether a dictionary batch of <paramref name="id"/> is for a selected field.</summary>
        public bool Uses(long id) => _ids.Contains(id);

        /// <summary>The kept buffer ranges of a record batch: the first buffer and count of each selected field.</summary>
        public ReadOnlySpan<(int Start, int Count)> BufferRanges => _buffers;

        public ReadOnlySpan<(int Start, int Count)> NodeRanges => _nodes;

        /// <summary>
        /// Resolves <paramref name="projection"/> against the verified Schema message <paramref name="root"/> and its
        /// columns. A field the schema lacks is invalid data for this reader; a schema whose layout is not known here
        /// (null, union, run-end encoded or view types) or a name two fields share is not supported.
        /// </summary>
        public static IpcProjectionPlan Create(IpcProjection projection, FlatReader reader, FlatTable root, IpcSchemaColumns columns)
        {
            long at = reader.InputOffset(root.Position);
            FlatTable schema = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
            (int position, int count) = reader.Vector(schema, SchemaFields, 4, "Schema.fields");
            IpcSchemaColumns.Layout? layout = columns.Batch;
            if (layout is null)
                throw IpcErrors.NotSupported(at, "message metadata, a projection of a schema with a field whose buffer layout is not known here (null, union, run-end encoded or view types)");
            var tops = new List<int>(count);
            for (int c = 0; c < layout.Columns.Count; c++)
            {
                if (layout.Columns[c].Parent < 0)
                    tops.Add(c);
            }
            if (tops.Count != count)
                IpcErrors.Throw(at, $"message metadata, the schema lists {count} field(s) but its columns have {tops.Count} top-level field(s)");

            int[] fields = Resolve(projection, reader, position, count, at);
            int totalBuffers = 0;
            foreach (IpcSchemaColumns.Column column in layout.Columns)
                totalBuffers = Math.Max(totalBuffers, column.FirstBuffer + column.BufferCount);
            var plan = new IpcProjectionPlan(fields, count, layout.Columns.Count, totalBuffers);
            int nodes = 0, buffers = 0;
            for (int k = 0; k < fields.Length; k++)
            {
                int first = tops[fields[k]];
                int end = fields[k] + 1 < tops.Count ? tops[fields[k] + 1] : layout.Columns.Count;
                IpcSchemaColumns.Column top = layout.Columns[first];
                int bufferEnd = end < layout.Columns.Count ? layout.Columns[end].FirstBuffer : totalBuffers;
                plan._nodes[k] = (top.Node, end - first);
                plan._buffers[k] = (top.FirstBuffer, bufferEnd - top.FirstBuffer);
                for (int c = first; c < end; c++)
                {
                    IpcSchemaColumns.Column column = layout.Columns[c];
                    column.Parent = column.Parent < 0 ? -1 : column.Parent - first + nodes;
                    column.Node = column.Node - first + nodes;
                    column.FirstBuffer = column.FirstBuffer - top.FirstBuffer + buffers;
                    plan.Layout.Columns.Add(column);
                }
                nodes += end - first;
                buffers += bufferEnd - top.FirstBuffer;
                int budget = 1 << 20;
                plan.Ids(reader, reader.TableAt(position + (4 * fields[k]), "Field"), 0, ref budget);
            }
            plan.Nodes = nodes;
            plan.Buffers = buffers;
            return plan;
        }

        // The selected fields' indices, ascending (schema order).
        private static int[] Resolve(IpcProjection projection, FlatReader reader, int position, int count, long at)
        {
            var fields = new List<int>();
            if (projection.Indices is { } indices)
            {
                foreach (int index in indices)
                {
                    if (index >= count)
                        IpcErrors.Throw(at, $"message metadata, the projection selects field index {index} but the schema has {count} field(s)");
                    fields.Add(index);
                }
            }
            else
            {
                foreach (string name in projection.Names!)
                {
                    byte[] utf8 = Encoding.UTF8.GetBytes(name);
                    int found = -1;
                    for (int i = 0; i < count; i++)
                    {
                        FlatTable field = reader.TableAt(position + (4 * i), "Field");
                        (int p, int length) = reader.Vector(field, FieldName, 1, "Field.name");
                        if (length != utf8.Length || (p == 0 && length != 0) || !reader.Data.Slice(p, length).SequenceEqual(utf8))
                            continue;
                        if (found >= 0)
                            throw IpcErrors.NotSupported(at, $"message metadata, the projection selects the field '{name}', a name fields {found} and {i} of the schema share (select it by index)");
                        found = i;
                    }
                    if (found < 0)
                        IpcErrors.Throw(at, $"message metadata, the projection selects the field '{name}', which the schema does not have");
                    fields.Add(found);
                }
            }
            fields.Sort();
            return fields.ToArray();
        }

        // Adds the dictionary ids a field and its children use: a dictionary's values' children may be encoded too.
        private void Ids(FlatReader reader, FlatTable field, int depth, ref int budget)
        {
            if (depth > MaxDepth || --budget < 0)
                IpcErrors.Throw(reader.InputOffset(field.Position), "message metadata, the schema's fields nest too deep to project");
            FlatTable encoding = reader.SubTable(field, FieldDictionary, "Field.dictionary");
            if (encoding.Exists)
                _ids.Add(reader.Int64(encoding, IpcMessageParser.DictionaryBatchId, 0, "DictionaryEncoding.id"));
            (int position, int count) = reader.Vector(field, FieldChildren, 4, "Field.children");
            for (int i = 0; i < count; i++)
                Ids(reader, reader.TableAt(position + (4 * i), "Field"), depth + 1, ref budget);
        }

        /// <summary>
        /// Shrinks the schema's fields vector in the metadata at <paramref name="start"/> to the selected fields, in place: each kept
        /// entry moves to an earlier slot and keeps pointing forward to its table. The result is read back: a hostile
        /// vector overlapping the tables it lists could change them, and then the schema is refused.
        /// </summary>
        public void RewriteSchema(byte[] buffer, int start, int length, long inputOffset, FlatTable root)
        {
            var reader = new FlatReader(buffer, start, length, inputOffset);
            FlatTable schema = reader.SubTable(root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
            (int position, _) = reader.Vector(schema, SchemaFields, 4, "Schema.fields");
            Span<byte> metadata = buffer.AsSpan(start, length);
            var targets = new int[_fields.Length];
            for (int k = 0; k < _fields.Length; k++)
            {
                int slot = position + (4 * _fields[k]);
                targets[k] = slot + BinaryPrimitives.ReadInt32LittleEndian(metadata.Slice(slot));
            }
            for (int k = 0; k < _fields.Length; k++)
                BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(position + (4 * k)), targets[k] - (position + (4 * k)));
            BinaryPrimitives.WriteInt32LittleEndian(metadata.Slice(position - 4), _fields.Length);
            if (!SchemaReadsBack(buffer, start, length, inputOffset, targets))
                IpcErrors.Throw(inputOffset, "message metadata, the schema's fields vector overlaps the fields it lists, so it cannot be projected");
        }

        private bool SchemaReadsBack(byte[] buffer, int start, int length, long inputOffset, int[] targets)
        {
            var reader = new FlatReader(buffer, start, length, inputOffset);
            IpcMessage message = IpcMessageParser.Parse(reader);
            if (message.HeaderType != IpcMessageParser.HeaderSchema)
                return false;
            int nodes = IpcSchemaVerifier.Verify(reader, message.Root);
            FlatTable schema = reader.SubTable(message.Root, IpcMessageParser.MessageHeader, "Message.header (Schema)");
            (int position, int count) = reader.Vector(schema, SchemaFields, 4, "Schema.fields");
            if (nodes != Nodes || count != targets.Length)
                return false;
            for (int k = 0; k < count; k++)
            {
                if (reader.TableAt(position + (4 * k), "Field").Position != targets[k])
                    return false;
            }
            IpcSchemaColumns.Layout? layout = IpcSchemaColumns.Read(buffer, start, length, message.Root).Batch;
            if (layout is null || layout.Columns.Count != Layout.Columns.Count)
                return false;
            for (int c = 0; c < layout.Columns.Count; c++)
            {
                IpcSchemaColumns.Column a = layout.Columns[c], b = Layout.Columns[c];
                if (a.Type != b.Type || a.Parent != b.Parent || a.Node != b.Node || a.FirstBuffer != b.FirstBuffer || a.BufferCount != b.BufferCount)
                    return false;
            }
            var ids = new IpcProjectionPlan(Array.Empty<int>(), 0, 0, 0);
            int budget = 1 << 20;
            for (int k = 0; k < count; k++)
                ids.Ids(reader, reader.TableAt(position + (4 * k), "Field"), 0, ref budget);
            return ids._ids.SetEquals(_ids);
        }
    }
}
