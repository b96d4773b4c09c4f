using System;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The last few Schema messages a thread's streams verified, with what the two walks found in each: a stream whose
    /// schema has the same metadata bytes as one of them takes their results instead of walking it again (a one-batch
    /// stream spends much of its own time there). Both walks read nothing but those bytes, so equal bytes verify and lay
    /// out alike. Kept only for a schema whose layout is its two counts (no dictionary ids, no Null fields) and which is
    /// short; per thread, so without a lock: a message is matched and taken within one synchronous call.
    /// </summary>
    internal sealed class IpcVerifiedSchema
    {
        // Longer schemas are rarer and their walks a smaller share of their streams: not kept.
        private const int MaxLength = 16384;

        // A thread that serves streams of a few schemas in turn (a service's endpoints, a reader of several tables)
        // walks each once; a new schema costs one length comparison per entry it is not.
        internal const int Entries = 4;

        // Most recently matched or remembered first; null entries only at the end.
        [ThreadStatic]
        private static IpcVerifiedSchema?[]? t_entries;

        private byte[] _bytes = Array.Empty<byte>();
        private int _length = -1;
        private IpcMessage _message;
        private int _nodes;
        private int _buffers;

        /// <summary>
        /// Whether <paramref name="metadata"/> is, byte for byte, a schema this thread verified lately: then
        /// <paramref name="message"/> is what the parse found and <paramref name="nodes"/>, <paramref name="buffers"/>
        /// the layout the schema walk found.
        /// </summary>
        public static bool TryMatch(ReadOnlySpan<byte> metadata, out IpcMessage message, out int nodes, out int buffers)
        {
            IpcVerifiedSchema?[]? entries = t_entries;
            for (int i = 0; entries is not null && i < entries.Length; i++)
            {
                IpcVerifiedSchema? entry = entries[i];
                if (entry is null)
                    break;
                if (entry._length != metadata.Length || !metadata.SequenceEqual(entry._bytes.AsSpan(0, entry._length)))
                    continue;
                MoveToFront(entries, i);
                message = entry._message;
                nodes = entry._nodes;
                buffers = entry._buffers;
                return true;
            }
            message = default;
            nodes = buffers = 0;
            return false;
        }

        /// <summary>Remembers a schema that passed both walks, with what they found, in place of the least recently used.</summary>
        public static void Remember(ReadOnlySpan<byte> metadata, in IpcMessage message, int nodes, int buffers)
        {
            if (metadata.Length > MaxLength)
                return;
            IpcVerifiedSchema?[] entries = t_entries ??= new IpcVerifiedSchema?[Entries];
            int last = Array.IndexOf(entries, null);
            if (last < 0)
                last = entries.Length - 1;
            IpcVerifiedSchema entry = entries[last] ??= new IpcVerifiedSchema();
            // Grown once to the longest kept: a thread reading streams of a few schemas in turn copies, never allocates.
            if (entry._bytes.Length < metadata.Length)
                entry._bytes = new byte[Math.Max(metadata.Length, Math.Min(MaxLength, entry._bytes.Length * 2))];
            entry._length = -1;
            metadata.CopyTo(entry._bytes);
            entry._message = message;
            entry._nodes = nodes;
            entry._buffers = buffers;
            entry._length = metadata.Length;
            MoveToFront(entries, last);
        }

        private static void MoveToFront(IpcVerifiedSchema?[] entries, int index)
        {
            IpcVerifiedSchema? entry = entries[index];
            for (int k = index; k > 0; k--)
                entries[k] = entries[k - 1];
            entries[0] = entry;
        }
    }
}
