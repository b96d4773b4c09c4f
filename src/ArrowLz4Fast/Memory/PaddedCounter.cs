using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// A counter alone on its cache line(s): the allocator keeps one per stripe, so threads on different cores count
    /// their allocations without bouncing a shared line between them.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 128)]
    internal struct PaddedCounter
    {
        [FieldOffset(64)]
        public long Value;
    }
}
