using System;
using System.Buffers;
using System.Diagnostics;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The pooled window of <see cref="Lz4FrameStreamReader"/> into which blocks decode when the caller's buffer cannot
    /// take them. For a linked frame it also keeps the history, the last <see cref="HistoryLength"/> (at most 64 KiB)
    /// bytes of output, ending at <see cref="HistoryEnd"/>: the prefix the next block's matches may reach into.
    /// </summary>
    internal sealed class Lz4HistoryWindow : IDisposable
    {
        // A linked window holds this much output after its history, so the history moves to the front only every few small blocks.
        private const int MinimumLinkedWindow = 512 * 1024;

        private byte[]? _buffer;

        public byte[] Buffer => _buffer!;

        public int HistoryEnd { get; private set; }

        public int HistoryLength { get; private set; }

        /// <summary>A new frame: no history.</summary>
        public void Reset() => HistoryEnd = HistoryLength = 0;

        /// <summary>
        /// Makes the window big enough for a block of this frame and returns where the block goes: 0 for an independent
        /// block, just after the history for a linked one (the history moved to the front when the block would not fit).
        /// </summary>
        public int Prepare(bool linked, int blockMaximum)
        {
            byte[] window = Ensure(linked ? LinkedSize(blockMaximum) : blockMaximum);
            if (!linked)
                return 0;
            if (HistoryEnd + blockMaximum > window.Length)
            {
                System.Buffer.BlockCopy(window, HistoryEnd - HistoryLength, window, 0, HistoryLength);
                HistoryEnd = HistoryLength;
            }
            return HistoryEnd;
        }

        /// <summary>A linked block was decoded into the window up to <paramref name="end"/>; the frame has produced <paramref name="frameOutput"/> bytes.</summary>
        public void Decoded(int end, long frameOutput)
        {
            HistoryEnd = end;
            HistoryLength = (int)Math.Min(frameOutput, Lz4FrameConstants.WindowSize);
            AssertBounds();
        }

        /// <summary>
        /// Appends output a linked frame decoded straight into the caller's buffer to the history, so that the next
        /// block decoded elsewhere finds its prefix.
        /// </summary>
        public void Append(ReadOnlySpan<byte> output, int blockMaximum)
        {
            int count = output.Length;
            int window = Lz4FrameConstants.WindowSize;
            byte[] buffer = Ensure(LinkedSize(blockMaximum));
            if (count >= window)
            {
                output.Slice(count - window, window).CopyTo(buffer);
                HistoryEnd = window;
                HistoryLength = window;
                return;
            }
            int keep = Math.Min(HistoryLength, window - count);
            System.Buffer.BlockCopy(buffer, HistoryEnd - keep, buffer, 0, keep);
            output.CopyTo(buffer.AsSpan(keep));
            HistoryEnd = keep + count;
            HistoryLength = keep + count;
            AssertBounds();
        }

        public void Dispose()
        {
            byte[]? window = _buffer;
            _buffer = null;
            if (window != null)
                ArrayPool<byte>.Shared.Return(window);
        }

        private static int LinkedSize(int blockMaximum) => Math.Max(Lz4FrameConstants.WindowSize + blockMaximum, MinimumLinkedWindow);

        /// <summary>The window, traded for a larger one (with the history) when it is smaller than <paramref name="size"/>.</summary>
        private byte[] Ensure(int size)
        {
            byte[]? window = _buffer;
            if (window != null && window.Length >= size)
                return window;
            byte[] larger = ArrayPool<byte>.Shared.Rent(size);
            if (window != null)
            {
                window.AsSpan(HistoryEnd - HistoryLength, HistoryLength).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(window);
            }
            else
            {
                HistoryLength = 0;
            }
            HistoryEnd = HistoryLength;
            _buffer = larger;
            return larger;
        }

        [Conditional("DEBUG")]
        private void AssertBounds() =>
            Debug.Assert(HistoryLength >= 0 && HistoryLength <= Lz4FrameConstants.WindowSize && HistoryLength <= HistoryEnd
                && HistoryEnd <= (_buffer?.Length ?? 0), "the history lies inside the window and is at most 64 KiB");
    }
}
