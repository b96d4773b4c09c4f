using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A body whose metadata was served before its bytes were read: only each buffer's head (its length prefix and
    /// frame header) is in the body array when <see cref="Defer"/> is called, and the rest comes while it decodes. The
    /// input decides the kind (<see cref="IpcInput.CreateDeferredBody"/>): copied forward as it arrives from a seekable
    /// stream (<see cref="IpcArrivingBody"/>), or read at positions by the threads that decode it from a file
    /// (<see cref="IpcPositionalBody"/>).
    /// </summary>
    internal abstract class IpcDeferredBody : IpcBodySource
    {
        protected IpcDeferredBody(IpcInput input) => Input = input;

        /// <summary>The input the body comes from.</summary>
        protected IpcInput Input { get; }

        /// <summary>The array the body is brought into (its heads are there already).</summary>
        protected byte[] Array { get; private set; } = System.Array.Empty<byte>();

        /// <summary>The body's length in <see cref="Array"/>.</summary>
        protected int Length { get; private set; }

        /// <summary>Whether this kind leaves the input past the body at once (the body is read at positions), so a projection may use it.</summary>
        public abstract bool ReadsAtPositions { get; }

        /// <summary>
        /// Takes the body of <paramref name="length"/> bytes at <paramref name="start"/> in the input (<see cref="IpcInput.Offset"/>)
        /// to be brought into <paramref name="array"/>, and moves the input as this kind does: at the body's start, or past it.
        /// </summary>
        public virtual void Defer(byte[] array, int length, long start)
        {
            Debug.Assert(length <= array.Length && start >= 0, "the body fits its array");
            Array = array;
            Length = length;
        }

        /// <summary>
        /// Brings, asynchronously, what an asynchronous read needs before the decode: what is left of a body arriving
        /// from a stream. A body read at positions brings nothing here: its decode reads it, as a synchronous read's does.
        /// </summary>
        public abstract ValueTask BringAllAsync(CancellationToken cancellationToken);
    }
}
