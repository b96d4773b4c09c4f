using System;
using System.Runtime.InteropServices;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// One block of native memory taken from the OS for a slab, aligned to 64 bytes, and reported to the GC as
    /// memory pressure for as long as it is held. A <see cref="SafeHandle"/> so the memory is freed exactly once:
    /// by the allocator when it gives the slab back, or by the critical finalizer if the whole allocator is dropped
    /// with memory still retained. Critical finalizers run after the ordinary ones, so an undisposed buffer's finalizer
    /// that returns its block (which only updates managed bookkeeping) never races the free.
    /// </summary>
    internal sealed unsafe class NativeSlabMemory : SafeHandle
    {
        private readonly long _bytes;

        /// <summary>Takes <paramref name="size"/> usable bytes (plus the alignment slack) from the OS.</summary>
        /// <exception cref="OutOfMemoryException">The OS has no memory to give.</exception>
        public NativeSlabMemory(long size)
            : base(IntPtr.Zero, ownsHandle: true)
        {
            _bytes = size + SizeClasses.Alignment;
#if NET
            // calloc: memory that comes fresh from the OS is already zero, so nothing is written until a buffer is used,
            // and untouched pages (the rounding of a large buffer up to its class) never become resident.
            void* raw = NativeMemory.AllocZeroed((nuint)_bytes);
            IsZeroed = true;
#else
            // netstandard2.0 has no calloc; the memory is treated as dirty and cleared when handed out.
            void* raw = (void*)Marshal.AllocHGlobal(new IntPtr(_bytes));
            IsZeroed = false;
#endif
            SetHandle((IntPtr)raw);
            Address = ((nint)raw + (SizeClasses.Alignment - 1)) & ~(nint)(SizeClasses.Alignment - 1);
            GC.AddMemoryPressure(_bytes);
        }

        /// <summary>The first 64-byte aligned address.</summary>
        public nint Address { get; }

        /// <summary>Whether the memory was zero when taken.</summary>
        public bool IsZeroed { get; }

        /// <inheritdoc />
        public override bool IsInvalid => handle == IntPtr.Zero;

        /// <inheritdoc />
        protected override bool ReleaseHandle()
        {
#if NET
            NativeMemory.Free((void*)handle);
#else
            Marshal.FreeHGlobal(handle);
#endif
            GC.RemoveMemoryPressure(_bytes);
            return true;
        }
    }
}
