using System;
using System.Diagnostics;
using System.IO;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// An input in memory: the stream of the <see cref="ReadOnlyMemory{T}"/> constructor, or exactly a
    /// <see cref="MemoryStream"/> whose array is exposed (a derived stream may read otherwise than its array says).
    /// Bodies are lent from where they lie and the stream is moved past them, so a body is never copied; the next
    /// message is never read ahead, as there is nothing to gain.
    /// </summary>
    internal sealed class IpcMemoryInput : IpcInput
    {
        public IpcMemoryInput(Stream stream)
            : base(stream)
        {
            Debug.Assert(stream is ReadOnlyMemoryStream || Exposes(stream), "Only a stream over memory lends its bytes.");
        }

        /// <inheritdoc/>
        public override bool CanReadAhead => false;

        /// <summary>Whether <paramref name="stream"/> is exactly a <see cref="MemoryStream"/> that exposes its array (fixed when it is made).</summary>
        public static bool Exposes(Stream stream) =>
            stream.GetType() == typeof(MemoryStream) && ((MemoryStream)stream).TryGetBuffer(out _);

        /// <inheritdoc/>
        protected override bool TryTake(int length, out ReadOnlyMemory<byte> bytes)
        {
            if (Stream is ReadOnlyMemoryStream memory)
                return memory.TryTake(length, out bytes);
            bytes = default;
            var stream = (MemoryStream)Stream;
            // The array is asked for each time: a stream still written to may have replaced it.
            long at;
            if (!stream.TryGetBuffer(out ArraySegment<byte> array) || (at = stream.Position) > array.Count - (long)length)
                return false;
            bytes = new ReadOnlyMemory<byte>(array.Array, array.Offset + (int)at, length);
            stream.Position = at + length;
            return true;
        }
    }
}
