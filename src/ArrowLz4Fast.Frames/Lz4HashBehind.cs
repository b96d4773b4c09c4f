using System;
using System.Threading;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Hashes a frame's content (its xxHash32 content checksum) on a helper thread while the calling thread is still
    /// decoding it. xxHash32 is one dependency chain, so it cannot be split; but it can run behind the decoder, which
    /// publishes how far the output is final, block by block and inside big blocks (<see cref="IDecodeProgress"/>).
    /// Arrow Java writes its buffers as one 4 MiB-maximum block with a content checksum, where the hash is a third of
    /// the sequential work: behind the decoding it is almost free. Linked frames gain the same way.
    /// </summary>
    /// <remarks>
    /// The hash state passes between the helper and the caller by a baton (a word set by compare-and-swap): whoever
    /// holds it may update the state. The helper takes it for one chunk at a time; the caller, when decoding is done,
    /// takes it for good and hashes whatever is left. So the caller never waits for a helper that has not started
    /// (the helper's only "block" is then left unclaimed), and waits for a running one at most one chunk. Errors leave
    /// the same way: the caller abandons the job, which waits until the helper no longer reads the destination.
    /// </remarks>
    internal sealed unsafe class Lz4HashBehind : Lz4ParallelJob
    {
        /// <summary>The most the helper hashes per turn with the baton: the longest the caller may wait for it.</summary>
        private const int Chunk = 64 << 10;

        private const int Free = 0;
        private const int HelperHolds = 1;
        private const int CallerHolds = 2;

        private static long s_started;

        /// <summary>Calls that hashed behind, for tests (one atomic increment per call of a megabyte or more).</summary>
        internal static long Started => Volatile.Read(ref s_started);

        private byte* _destination;
        private int _published;
        private int _hashed;
        private int _baton;
        private int _finished;
        private XXH32.State _state;

        /// <summary>
        /// Starts hashing <paramref name="destination"/> from <paramref name="from"/> on, continuing
        /// <paramref name="state"/>, as the caller publishes how far the content is final. The destination must stay
        /// pinned until <see cref="Finish"/> or <see cref="Abandon"/>.
        /// </summary>
        public static Lz4HashBehind Start(byte* destination, int from, in XXH32.State state)
        {
            Interlocked.Increment(ref s_started);
            Lz4HashBehind job = Lz4JobPool<Lz4HashBehind>.Rent();
            job._destination = destination;
            job._published = from;
            job._hashed = from;
            job._baton = Free;
            job._finished = 0;
            job._state = state;
            job.Prepare(1);
            job.Start(helpers: 1);
            return job;
        }

        /// <summary>The content is final up to <paramref name="position"/> (an offset in the destination).</summary>
        public void Publish(int position) => Volatile.Write(ref _published, position);

        /// <summary>The content ends at <paramref name="end"/>: hashes what the helper has not and returns the state.</summary>
        public XXH32.State Finish(int end)
        {
            Volatile.Write(ref _published, end);
            TakeBaton();
            if (end > _hashed)
                XXH32.Update(ref _state, new ReadOnlySpan<byte>(_destination + _hashed, end - _hashed));
            _hashed = end;
            XXH32.State state = _state;
            StopAndWaitForHelpers();
            ThrowIfHelperFailed(); // a bug, not bad input; the job is then dropped, not pooled
            ReturnToPool();
            return state;
        }

        /// <summary>Decoding failed: stops the helper, and waits until it no longer reads the destination.</summary>
        public void Abandon()
        {
            TakeBaton();
            StopAndWaitForHelpers();
            ReturnToPool();
        }

        private void TakeBaton()
        {
            Volatile.Write(ref _finished, 1);
            // A helper that has not claimed its block never will; one that has gives the baton back within a chunk.
            Stop();
            var spinner = new SpinWait();
            while (Interlocked.CompareExchange(ref _baton, CallerHolds, Free) != Free)
                spinner.SpinOnce();
        }

        private void ReturnToPool()
        {
            _destination = null;
            Lz4JobPool<Lz4HashBehind>.Return(this);
        }

        protected override void ProcessBlock(int index)
        {
            // The helper's whole job: follow the published position until the caller takes over.
            var spinner = new SpinWait();
            while (Volatile.Read(ref _finished) == 0)
            {
                int published = Volatile.Read(ref _published);
                if (published <= _hashed)
                {
                    // Waiting for the decoder: spin and yield, never sleep (a sleep is a millisecond).
#if NETCOREAPP3_0_OR_GREATER
                    spinner.SpinOnce(sleep1Threshold: -1);
#else
                    if (spinner.NextSpinWillYield)
                    {
                        Thread.Yield();
                        spinner.Reset();
                    }
                    else
                    {
                        spinner.SpinOnce();
                    }
#endif
                    continue;
                }
                if (Interlocked.CompareExchange(ref _baton, HelperHolds, Free) != Free)
                    return; // the caller has taken over
                int start = _hashed;
                int end = Math.Min(published, start + Chunk);
                XXH32.Update(ref _state, new ReadOnlySpan<byte>(_destination + start, end - start));
                _hashed = end;
                Volatile.Write(ref _baton, Free);
            }
        }

        protected override void AfterCallerBlock()
        {
        }
    }
}
