using System;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The last Schema message a thread's streams verified, with what the two walks found in it: a stream whose schema
    /// has the same metadata bytes takes their results instead of walking it again (a one-batch stream spends much of
    /// its own time there). Both walks read nothing but those bytes, so equal bytes verify and lay out alike. Kept only
    /// for a schema whose layout is its two counts (no dictionary ids, no Null fields) and which is short; per thread, so
    /// without a lock: a message is matched and taken within one synchronous call.
    /// </summary>
    internal sealed class IpcVerifiedSchema
    {
        // Longer schemas are rarer and their walks a smaller share of their streams: not kept.
        private const int MaxLength = 16384;

        [ThreadStatic]
        private static IpcVerifiedSchema? t_last;

        private byte[] _bytes = Array.Empty<byte>();
        private int _length = -1;
        private IpcMessage _message;
        private int _nodes;
        private int _buffers;

        /// <summary>
        /// Whether <paramref name="metadata"/> is, byte for byte, the schema this thread verified last: then
        /// <paramref name="message"/> is what the parse found and <paramref name="nodes"/>, <paramref name="buffers"/>
        /// the layout the schema walk found.
        /// </summary>
        public static bool TryMatch(ReadOnlySpan<byte> metadata, out IpcMessage message, out int nodes, out int buffers)
        {
            IpcVerifiedSchema? last = t_last;
            if (last is null || last._length != metadata.Length || !metadata.SequenceEqual(last._bytes.AsSpan(0, last._length)))
            {
                message = default;
                nodes = buffers = 0;
                return false;
            }
            message = last._message;
            nodes = last._nodes;
            buffers = last._buffers;
            return true;
        }

        /// <summary>Remembers a schema that passed both walks, with what they found.</summary>
        public static void Remember(ReadOnlySpan<byte> metadata, in IpcMessage message, int nodes, int buffers)
        {
            if (metadata.Length > MaxLength)
                return;
            IpcVerifiedSchema last = t_last ??= new IpcVerifiedSchema();
            // Grown once to the longest kept: a thread reading streams of two schemas in turn copies, never allocates.
            if (last._bytes.Length < metadata.Length)
                last._bytes = new byte[Math.Max(metadata.Length, Math.Min(MaxLength, last._bytes.Length * 2))];
            last._length = -1;
            metadata.CopyTo(last._bytes);
            last._message = message;
            last._nodes = nodes;
            last._buffers = buffers;
            last._length = metadata.Length;
        }
    }
}
