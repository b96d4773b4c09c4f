using System;
using System.Buffers;
using System.Diagnostics;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The read-ahead windows of <see cref="Lz4FrameStreamReader"/>, the degree plus one, pooled and this reader's.
    /// The ring orders them by when the caller last read them, most recent first (see <see cref="Pick"/>);
    /// <see cref="Windows"/>[next..count) hold blocks decoded ahead, <see cref="Lengths"/> bytes each, which the reader
    /// serves, in order, after its pending output.
    /// </summary>
    internal sealed class Lz4ReadAheadRing : IDisposable
    {
        private readonly int _size;
        private byte[]?[]? _ring;
        private byte[]?[]? _windows;
        private int[]? _lengths;
        private int _next;
        private int _count;

        /// <param name="degree">The reader's degree of parallelism: a batch decodes at most the degree plus one windows.</param>
        public Lz4ReadAheadRing(int degree) => _size = degree + 1;

        /// <summary>The windows of the last batch, in the order the caller reads them.</summary>
        public byte[]?[] Windows => _windows ??= new byte[]?[_size];

        /// <summary>What each window of the last batch holds.</summary>
        public int[] Lengths => _lengths ??= new int[_size];

        /// <summary>Windows decoded ahead and not yet served.</summary>
        public bool HasNext => _next < _count;

        /// <summary>Decoded bytes in the windows not yet served.</summary>
        public long Buffered
        {
            get
            {
                long bytes = 0;
                for (int i = _next; i < _count; i++)
                    bytes += _lengths![i];
                return bytes;
            }
        }

        /// <summary>The next window decoded ahead and its length; the caller checks <see cref="HasNext"/> first.</summary>
        public byte[] Next(out int length)
        {
            Debug.Assert(_next < _count && _count <= _size, "a window is served only once, and only one decoded ahead");
            int i = _next++;
            length = _lengths![i];
            return _windows![i]!;
        }

        /// <summary>Forgets the windows not yet served (a new frame starts).</summary>
        public void Clear() => _next = _count = 0;

        /// <summary>
        /// Fills <see cref="Windows"/>[0..<paramref name="ahead"/>) from the ring for a batch. A helper thread that
        /// decodes into memory the caller has just read waits for the caller's core to give up those cache lines: on the
        /// project's VM a pair of 4 MiB blocks then takes as long as the two in sequence (docs/streams.md). So helpers get
        /// the windows read longest ago, and the caller, which claims the first block, the one it read last, unless the
        /// first block goes to its own buffer.
        /// </summary>
        public void Pick(int ahead, bool callerTakesDirect, int blockMaximum)
        {
            Debug.Assert(ahead <= _size, "a batch has at most the degree plus one windows");
            byte[]?[] windows = Windows;
            byte[]?[] ring = _ring ??= new byte[]?[_size];
            int oldest = ring.Length - 1;
            for (int i = 0; i < ahead; i++)
            {
                int slot = i == 0 && !callerTakesDirect ? 0 : oldest--;
                byte[]? window = ring[slot];
                if (window == null || window.Length < blockMaximum)
                {
                    if (window != null)
                        ArrayPool<byte>.Shared.Return(window);
                    ring[slot] = null;
                    window = ring[slot] = ArrayPool<byte>.Shared.Rent(blockMaximum);
                }
                windows[i] = window;
            }
        }

        /// <summary>
        /// The batch kept its first <paramref name="count"/> windows: they are served next, and the ring is reordered
        /// for them, which the caller reads in that order.
        /// </summary>
        public void Kept(int count)
        {
            Debug.Assert(count <= _size && !HasNext, "a batch starts when the windows before it are served");
            _next = 0;
            _count = count;
            byte[]?[] windows = Windows;
            byte[]?[] ring = _ring!;
            // Move the windows read first to the front; the batch's last window, read last, ends up most recent of all.
            for (int i = 0; i < count; i++)
            {
                byte[]? window = windows[i];
                int at = Array.IndexOf(ring, window);
                Debug.Assert(at >= 0, "every window of a batch comes from the ring");
                Array.Copy(ring, 0, ring, 1, at);
                ring[0] = window;
            }
        }

        public void Dispose()
        {
            if (_windows != null)
                Array.Clear(_windows, 0, _windows.Length);
            byte[]?[]? ring = _ring;
            if (ring != null)
            {
                for (int i = 0; i < ring.Length; i++)
                {
                    byte[]? ahead = ring[i];
                    ring[i] = null;
                    if (ahead != null)
                        ArrayPool<byte>.Shared.Return(ahead);
                }
            }
            _next = _count = 0;
        }
    }
}
