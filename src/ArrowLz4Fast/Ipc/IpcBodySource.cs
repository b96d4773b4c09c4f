using System;
using System.Diagnostics;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A laid-out compressed body as <see cref="IpcBodyDecoder"/> decodes it: its bytes, where it starts in the input
    /// (error offsets count from there), its buffers, and how its bytes come. This type is a body whose bytes are all
    /// there (in memory, or read whole); <see cref="IpcDeferredBody"/>'s kinds bring theirs while the body decodes.
    /// The decoder asks the body, not flags, which way the buffer-level batch runs.
    /// </summary>
    internal class IpcBodySource
    {
        private ReadOnlyMemory<byte> _bytes;

        /// <summary>The body's memory; for a deferred body only each buffer's head is there until it is brought.</summary>
        public ReadOnlySpan<byte> Bytes => _bytes.Span;

        /// <summary>Where the body starts, in the input's bytes (error offsets add to it).</summary>
        public long Offset { get; private set; }

        /// <summary>The body's buffers, laid out by <see cref="IpcBodyLayout.Compute"/>.</summary>
        public IpcBufferItem[] Items { get; private set; } = Array.Empty<IpcBufferItem>();

        /// <summary>How many of <see cref="Items"/> are the body's.</summary>
        public int Count { get; private set; }

        /// <summary>Whether every byte of the body is there to decode from.</summary>
        public virtual bool AllThere => true;

        /// <summary>The body bytes still to come from where the input stands (0 when they are there, or read at positions).</summary>
        public virtual long Left => 0;

        /// <summary>Sets the body to decode next.</summary>
        public void Lay(ReadOnlyMemory<byte> bytes, long offset, IpcBufferItem[] items, int count)
        {
            Debug.Assert((uint)count <= (uint)items.Length, "the layout's count is within its items");
            _bytes = bytes;
            Offset = offset;
            Items = items;
            Count = count;
        }

        /// <summary>Forgets the body (so that nothing of it is held once it is served).</summary>
        public void Clear() => Lay(default, 0, Array.Empty<IpcBufferItem>(), 0);

        /// <summary>
        /// Brings every byte of the body that is not there yet, for decodes that need all of it first: on the calling
        /// thread, or, by a kind read at positions, on up to <paramref name="degree"/> threads.
        /// </summary>
        public virtual void BringAll(int degree)
        {
        }

        /// <summary>
        /// Decodes the buffer-level batch (items of <see cref="Bytes"/>) into <paramref name="destination"/>, bringing
        /// the bytes as this kind of body brings them. <paramref name="alongside"/> (work for the calling thread while
        /// the helpers decode) runs at most once; a kind that reads on the decoding threads does not run it.
        /// </summary>
        public virtual void DecodeBatch(Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> batch, Lz4FrameDecoderOptions options, Action? alongside)
        {
            if (alongside is null)
                Lz4FrameDecoder.DecodeBatch(Bytes, destination, batch, options);
            else
                Lz4FrameDecoder.DecodeBatchAlongside(Bytes, destination, batch, options, alongside);
        }
    }
}
