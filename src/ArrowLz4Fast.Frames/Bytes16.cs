using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Frames
{
    /// <summary>16 bytes moved as one unaligned load and store by the block decoder's and encoder's wide copies.</summary>
    [StructLayout(LayoutKind.Sequential, Size = 16)]
    internal readonly struct Bytes16
    {
        private readonly ulong _a;
        private readonly ulong _b;
    }
}
