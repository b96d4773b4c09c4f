using System;
using System.Threading;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// Lets a writer that will overwrite a whole buffer (IpcDecompressingStream serving a message body) take over the
    /// zeroing of the buffer Arrow allocates for it, as the codec path does with <see cref="SlabMemoryOwner.TrySkipClear"/>.
    /// Arrow reaches a body buffer's span before it calls <c>Stream.Read(Span)</c>, so the writer cannot cancel the
    /// zeroing by then; it announces the body instead, and the next allocation on this thread, if it has that length,
    /// leaves the zeroing to the writer's next read.
    /// </summary>
    /// <remarks>
    /// The writer must <see cref="Settle"/> at its next read and <see cref="Release"/> when disposed: a buffer it does not
    /// then write whole is zeroed before anything else happens, so only the thread's code between the announcement and
    /// that read (Arrow's reader, allocating the body) could see it unzeroed.
    /// </remarks>
    internal sealed class WholeWriteHandoff
    {
        [ThreadStatic]
        private static WholeWriteHandoff? t_announced;

        private int _length;
        private bool _armed;
        private SlabMemoryOwner? _owner;

        /// <summary>Announces, on this thread, that the next allocation of <paramref name="length"/> bytes will be read into whole.</summary>
        public void Announce(int length)
        {
            Release();
            _length = length;
            _armed = true;
            t_announced = this;
        }

        /// <summary>From the allocator: the announcement this allocation answers, if any; any allocation ends it.</summary>
        internal static void Offer(SlabMemoryOwner owner, int length)
        {
            WholeWriteHandoff? handoff = t_announced;
            if (handoff is null)
                return;
            t_announced = null;
            if (!handoff._armed)
                return;
            handoff._armed = false;
            if (handoff._length == length && owner.TryDeferClear())
                handoff._owner = owner;
        }

        /// <summary>
        /// At the writer's read: whether <paramref name="destination"/> is the whole of the announced buffer, whose zeroing
        /// the writer now owes (it writes every byte, or zeroes the buffer if it cannot). Otherwise the buffer is zeroed now.
        /// </summary>
        public unsafe bool Settle(Span<byte> destination)
        {
            _armed = false;
            SlabMemoryOwner? owner = _owner;
            if (owner is null)
                return false;
            _owner = null;
            fixed (byte* at = destination)
            {
                if (owner.TryClaimDeferred((nint)at, destination.Length))
                    return true;
            }
            owner.ClearDeferred();
            return false;
        }

        /// <summary>Ends an announcement and zeroes a buffer still owed; from the writer's dispose and error paths.</summary>
        public void Release()
        {
            _armed = false;
            SlabMemoryOwner? owner = Interlocked.Exchange(ref _owner, null);
            owner?.ClearDeferred();
        }
    }
}
