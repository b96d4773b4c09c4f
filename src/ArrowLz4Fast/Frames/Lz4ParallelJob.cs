using System;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The scheduling shared by parallel decode and encode: the blocks of one call are claimed one at a time from a
    /// shared counter (<see cref="Interlocked.Increment(ref int)"/>) by the calling thread and by up to
    /// <c>degree - 1</c> thread-pool work items. The caller never waits for a work item that has not started: once
    /// every block is claimed it waits only for blocks other threads claimed and are running, so when the pool is
    /// saturated and no work item starts, the caller simply does every block itself. A work item that starts after
    /// the call is over finds nothing to claim and leaves; the object goes back to its pool only when the caller
    /// and every queued work item are done with it (a reference count), so a late work item never meets the next call.
    /// </summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Jobs are pooled for the life of the process; the event never creates a kernel handle (its WaitHandle is never read).")]
    internal abstract class Lz4ParallelJob
#if NETCOREAPP3_0_OR_GREATER
        : IThreadPoolWorkItem
#endif
    {
#if !NETCOREAPP3_0_OR_GREATER
        private static readonly WaitCallback s_execute = state => ((Lz4ParallelJob)state!).Execute();
#endif

        private readonly ManualResetEventSlim _signal = new(false);
        private int[] _done = new int[16];
        private int _next;
        private int _count;
        private int _stop;
        private int _active;
        private int _references;
        private Exception? _failure;

        /// <summary>Blocks of the current call.</summary>
        protected int Count => _count;

        /// <summary>Processes block <paramref name="index"/>; runs on the caller or on a pool thread, never twice for one block.</summary>
        /// <param name="index">The block.</param>
        protected abstract void ProcessBlock(int index);

        /// <summary>Runs on the calling thread after each block it processed itself: pipelined work that must stay in order.</summary>
        protected abstract void AfterCallerBlock();

        /// <summary>Returns this object to its type's pool once nobody uses it any more.</summary>
        protected abstract void ReturnToPool();

        /// <summary>Makes room for <paramref name="count"/> blocks.</summary>
        /// <param name="count">Blocks of the call.</param>
        protected void Prepare(int count)
        {
            if (_done.Length < count)
                _done = new int[Math.Max(count, _done.Length * 2)];
            else
                Array.Clear(_done, 0, count);
            _count = count;
            _next = 0;
            _stop = 0;
            _failure = null;
            _signal.Reset();
        }

        /// <summary>Queues <paramref name="workers"/> helpers and claims blocks on the calling thread until none is left.</summary>
        /// <param name="workers">Work items to queue (the degree of parallelism minus the caller).</param>
        protected void StartAndClaim(int workers)
        {
            Volatile.Write(ref _references, 1 + workers);
            for (int i = 0; i < workers; i++)
            {
#if NETCOREAPP3_0_OR_GREATER
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
#else
                ThreadPool.UnsafeQueueUserWorkItem(s_execute, this);
#endif
            }
            ClaimLoop(caller: true);
        }

        /// <summary>Whether block <paramref name="index"/> is done, without waiting.</summary>
        /// <param name="index">The block.</param>
        /// <returns>It has been processed.</returns>
        protected bool IsDone(int index) => Volatile.Read(ref _done[index]) != 0;

        /// <summary>
        /// Waits until block <paramref name="index"/> is done. Only called once every block is claimed, so the block
        /// is running on some thread (or was already processed); it is never a queued work item that has not started.
        /// </summary>
        /// <param name="index">The block.</param>
        /// <returns><see langword="false"/> when it will not be done: a helper failed, or the job was stopped before it was claimed.</returns>
        protected bool WaitDone(int index)
        {
            var spinner = new SpinWait();
            while (Volatile.Read(ref _done[index]) == 0)
            {
                if (Volatile.Read(ref _failure) != null)
                    return false;
                if (Volatile.Read(ref _stop) != 0 && Volatile.Read(ref _active) == 0)
                    return Volatile.Read(ref _done[index]) != 0;
                if (!spinner.NextSpinWillYield)
                {
                    spinner.SpinOnce();
                    continue;
                }
                _signal.Reset();
                if (Volatile.Read(ref _done[index]) != 0 || Volatile.Read(ref _failure) != null)
                    continue;
                _signal.Wait();
            }
            return true;
        }

        /// <summary>Claims no more blocks.</summary>
        protected void Stop() => Volatile.Write(ref _stop, 1);

        /// <summary>
        /// Stops claims and waits until no helper is inside a block (they only touch the caller's memory while
        /// inside one), then rethrows a helper's unexpected exception, if any.
        /// </summary>
        protected void StopAndWaitForHelpers()
        {
            Stop();
            var spinner = new SpinWait();
            while (Volatile.Read(ref _active) != 0)
            {
                if (!spinner.NextSpinWillYield)
                {
                    spinner.SpinOnce();
                    continue;
                }
                _signal.Reset();
                if (Volatile.Read(ref _active) == 0)
                    break;
                _signal.Wait();
            }
        }

        /// <summary>Rethrows the exception a helper hit, if any (a bug, not bad input: bad input is a block status).</summary>
        protected void ThrowIfHelperFailed()
        {
            Exception? failure = Volatile.Read(ref _failure);
            if (failure != null)
                ExceptionDispatchInfo.Capture(failure).Throw();
        }

        /// <summary>The caller is done with this object; the last user returns it to the pool.</summary>
        protected void ReleaseCaller() => Release();

#if NETCOREAPP3_0_OR_GREATER
        /// <inheritdoc/>
        void IThreadPoolWorkItem.Execute() => Execute();
#endif

        private void Execute()
        {
            // Counted as active before claiming, so a caller that saw every block claimed also sees this helper.
            Interlocked.Increment(ref _active);
            try
            {
                ClaimLoop(caller: false);
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref _failure, e, null);
                Stop();
            }
            finally
            {
                Interlocked.Decrement(ref _active);
                _signal.Set();
                Release();
            }
        }

        private void ClaimLoop(bool caller)
        {
            int count = _count;
            while (Volatile.Read(ref _stop) == 0)
            {
                int index = Interlocked.Increment(ref _next) - 1;
                if (index >= count)
                    return;
                ProcessBlock(index);
                Volatile.Write(ref _done[index], 1);
                if (caller)
                    AfterCallerBlock();
                else
                    _signal.Set();
            }
        }

        private void Release()
        {
            if (Interlocked.Decrement(ref _references) == 0)
                ReturnToPool();
        }
    }

    /// <summary>A small lock-free pool of job objects, so a parallel call allocates no state of its own.</summary>
    /// <typeparam name="T">The job type.</typeparam>
    internal static class Lz4JobPool<T>
        where T : class, new()
    {
        private static readonly T?[] s_items = new T?[Math.Max(4, Environment.ProcessorCount * 2)];

        public static T Rent()
        {
            T?[] items = s_items;
            for (int i = 0; i < items.Length; i++)
            {
                T? item = Interlocked.Exchange(ref items[i], null);
                if (item != null)
                    return item;
            }
            return new T();
        }

        public static void Return(T item)
        {
            T?[] items = s_items;
            for (int i = 0; i < items.Length; i++)
            {
                if (Interlocked.CompareExchange(ref items[i], item, null) == null)
                    return;
            }
        }
    }
}
