using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The 8-byte uncompressed length Arrow's IPC format puts before each compressed buffer's frame. Arrow's reader
    /// passes the codec the frame as a slice of the memory that holds the whole buffer (the message body, or the input
    /// of a reader over memory), so the length lies just before the slice; the destination alone cannot tell it, as
    /// allocators may hand out longer buffers.
    /// </summary>
    internal readonly struct ArrowPrefix
    {
        public static ArrowPrefix None => default;

        private ArrowPrefix(int declaredLength, int offset)
        {
            DeclaredLength = declaredLength;
            Offset = offset + 1;
        }

        /// <summary>The buffer's declared uncompressed length.</summary>
        public int DeclaredLength { get; }

        // One more than the prefix's offset in the memory holding it, so that default means "not known".
        private int Offset { get; }

        public bool IsKnown => Offset > 0;

        /// <summary>
        /// Reads the prefix before <paramref name="source"/>: false when no 8 bytes precede it in its memory, or they do
        /// not hold a length the destination of <paramref name="room"/> bytes can take (then they are no Arrow prefix:
        /// Arrow allocates at least the declared length).
        /// </summary>
        public static bool TryRead(ReadOnlyMemory<byte> source, int room, out ArrowPrefix prefix)
        {
            prefix = default;
            ReadOnlySpan<byte> memory;
            int start;
            if (MemoryMarshal.TryGetArray(source, out ArraySegment<byte> segment))
            {
                memory = segment.Array;
                start = segment.Offset;
            }
            else if (MemoryMarshal.TryGetMemoryManager(source, out MemoryManager<byte>? manager, out start, out _))
            {
                memory = manager!.GetSpan();
            }
            else
            {
                return false;
            }
            if (start < 8 || start > memory.Length)
                return false;
            long declared = BinaryPrimitives.ReadInt64LittleEndian(memory.Slice(start - 8));
            if (declared < 0 || declared > room)
                return false;
            prefix = new ArrowPrefix((int)declared, start - 8);
            return true;
        }

        /// <summary>Where the buffer is, for error messages; empty when not known.</summary>
        public string Describe() => IsKnown
            ? $" (the compressed Arrow buffer declaring {DeclaredLength} bytes, whose length prefix is at byte offset {Offset - 1} of the memory Arrow's reader holds it in: the message body when it reads a stream or file, the input when it reads memory)"
            : "";
    }
}
