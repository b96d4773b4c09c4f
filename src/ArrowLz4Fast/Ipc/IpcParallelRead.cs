using System;
using System.Diagnostics;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Reads a body at positions in chunks spread over the threads of a parallel call, for a decode that needs the whole
    /// body first (split frames, one dominant buffer): the copy out of the file's pages is shared by the threads
    /// instead of made by the calling thread alone while the helpers wait for the decode.
    /// </summary>
    internal sealed class IpcParallelRead : Lz4ParallelJob
    {
        /// <summary>Each thread reads this much at a time: large enough that a read's fixed cost is small, small enough to share.</summary>
        public const int Chunk = 1 << 18;

        private Lz4BatchSourceRead? _read;
        private int _length;

        /// <summary>Reads <paramref name="length"/> bytes with <paramref name="read"/>, chunk by chunk, on up to <paramref name="degree"/> threads.</summary>
        public static void Run(int length, int degree, Lz4BatchSourceRead read)
        {
            Debug.Assert(length > Chunk && degree > 1, "a read worth sharing");
            IpcParallelRead job = Lz4JobPool<IpcParallelRead>.Rent();
            int count = (int)(((long)length + Chunk - 1) / Chunk);
            job._read = read;
            job._length = length;
            job.Prepare(count);
            try
            {
                job.StartAndClaim(Math.Min(degree, count) - 1);
            }
            finally
            {
                job.StopAndWaitForHelpers();
                job._read = null;
            }
            // A helper's failure (the file shortened or unreadable) is thrown here, as the calling thread's would be.
            job.ThrowIfHelperFailed();
            Lz4JobPool<IpcParallelRead>.Return(job);
        }

        protected override void ProcessBlock(int index)
        {
            int at = index * Chunk;
            _read!(at, Math.Min(Chunk, _length - at));
        }

        protected override void AfterCallerBlock()
        {
        }
    }
}
