using System;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The scheduling shared by parallel decode and encode: the blocks of one call are claimed one at a time from a
    /// shared claim word (compare-and-swap) by the calling thread and by up to <c>degree - 1</c> work items (at most
    /// <see cref="Lz4ParallelTiming.MaxWorkItemsPerCall"/>), posted to idle <see cref="Lz4ParallelHelpers"/> threads
    /// first and queued to the thread pool for the rest. The caller never
    /// waits for a work item that has not started: once every block is claimed it waits only for blocks other threads
    /// claimed and are running, so when no helper or pool thread gets a core, the caller simply does every block itself.
    /// </summary>
    /// <remarks>
    /// The claim word holds the call's generation, block count and next block, so a work item that starts late (after
    /// its call is over, or during a later call on the same pooled object) either finds nothing to claim or claims a
    /// block of the call that is running then, whose state was complete before the word was published. A helper counts
    /// itself active before it reads the word, and the caller does not finish until no helper is active, so nothing
    /// touches a call's memory after the call returns. Work items still queued are counted, and a call queues only as
    /// many more as are missing, so a saturated pool is not flooded with items of calls long finished.
    /// </remarks>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Jobs are pooled for the life of the process; the event never creates a kernel handle (its WaitHandle is never read).")]
    internal abstract class Lz4ParallelJob
#if NETCOREAPP3_0_OR_GREATER
        : IThreadPoolWorkItem
#endif
    {
        /// <summary>The most blocks one call may have (the claim word keeps 16 bits each for the count and the next block).</summary>
        internal const int MaximumBlocks = 0xFFFF;

#if !NETCOREAPP3_0_OR_GREATER
        private static readonly WaitCallback s_execute = state =>
        {
            Lz4ParallelJob? none = null;
            ((Lz4ParallelJob)state!).RunAsHelper(ref none);
        };
#endif

        private readonly ManualResetEventSlim _signal = new(false);
        private int[] _done = new int[16];
        private long _claim;
        private int _count;
        private int _active;
        private int _queued;
        private bool _stopped;
        private Exception? _failure;

        private static readonly long s_promptTicks = Lz4ParallelTiming.Ticks(Lz4ParallelTiming.PromptStartMicroseconds);
        private static readonly long s_callerSpinTicks = Lz4ParallelTiming.Ticks(Lz4ParallelTiming.CallerSpinMicroseconds);

        // A call published to run after this one: this call's helpers move on to it as they run out of blocks.
        private Lz4ParallelJob? _successor;
        // Helpers a call published after another still wants posted, and how many moved on to it from that call.
        private int _deferred;
        private int _joined;

        private int _callerThreadId;
        private long _publishedAt;
        private long _helperStartedAt;
        private int _running;

        /// <summary>Blocks of the current call.</summary>
        protected int Count => _count;

        /// <summary>Processes block <paramref name="index"/>; runs on the caller or on a pool thread, never twice for one block.</summary>
        /// <param name="index">The block.</param>
        protected abstract void ProcessBlock(int index);

        /// <summary>Runs on the calling thread after each block it processed itself: pipelined work that must stay in order.</summary>
        protected abstract void AfterCallerBlock();

        /// <summary>Makes room for <paramref name="count"/> blocks (at most <see cref="MaximumBlocks"/>).</summary>
        /// <param name="count">Blocks of the call.</param>
        protected void Prepare(int count)
        {
            Debug.Assert(count > 0 && count <= MaximumBlocks, "the claim word keeps 16 bits for the block count");
            Debug.Assert(Volatile.Read(ref _running) == 0, "a job runs one call at a time");
            if (_done.Length < count)
                _done = new int[Math.Max(count, _done.Length * 2)];
            else
                Array.Clear(_done, 0, count);
            _count = count;
            _stopped = false;
            _failure = null;
            _successor = null;
            _deferred = 0;
            _joined = 0;
            _signal.Reset();
        }

        /// <summary>Publishes the call, queues the helpers still missing and claims blocks on the calling thread until none is left.</summary>
        /// <param name="helpers">Work items wanted besides the caller (the degree of parallelism minus one).</param>
        protected void StartAndClaim(int helpers)
        {
            Start(helpers);
            ClaimLoop(caller: true);
        }

        /// <summary>
        /// As <see cref="StartAndClaim(int)"/>, running <paramref name="alongside"/> on the calling thread between the
        /// start and its claims; if it throws, no block is claimed after it (the caller then waits for the helpers).
        /// </summary>
        /// <param name="helpers">Work items wanted besides the caller.</param>
        /// <param name="alongside">Work for the calling thread while the helpers start, or null.</param>
        protected void StartAndClaim(int helpers, Action? alongside)
        {
            Start(helpers);
            if (alongside is not null)
            {
                try
                {
                    alongside();
                }
                catch
                {
                    Stop();
                    throw;
                }
            }
            ClaimLoop(caller: true);
        }

        /// <summary>Claims blocks on the calling thread until none is left (after <see cref="Start"/>, when the caller joins later).</summary>
        protected void ClaimRemaining() => ClaimLoop(caller: true);

        /// <summary>Publishes the call and queues the helpers still missing; the caller claims nothing.</summary>
        /// <param name="helpers">Work items wanted (the degree of parallelism minus one).</param>
        protected void Start(int helpers)
        {
            Publish();
            PostHelpers(helpers);
        }

        /// <summary>
        /// Publishes the call to run after <paramref name="before"/>, a call started on another job and not yet
        /// completed: its helpers move on to this call as they run out of blocks, and the thread completing it claims
        /// blocks of this call while it waits for them, then posts the helpers still missing
        /// (<see cref="ClaimSuccessorWhileHelpersFinish"/>). So no thread idles between the two calls, and no more
        /// threads than the degree run at once. <paramref name="before"/> must be completed before this call.
        /// </summary>
        /// <param name="helpers">Work items wanted (the degree of parallelism minus one).</param>
        /// <param name="before">The call this one follows.</param>
        protected void StartAfter(int helpers, Lz4ParallelJob before)
        {
            Debug.Assert(before != this && Volatile.Read(ref before._running) != 0, "a call follows another call still running");
            Publish();
            _deferred = helpers;
            // Published whole (the exchange in Publish is a full fence) before a helper of the other call can see it.
            Volatile.Write(ref before._successor, this);
        }

        private void Publish()
        {
            Volatile.Write(ref _running, 1);
            if (Lz4FramesEventSource.Log.IsEnabled())
                _callerThreadId = Environment.CurrentManagedThreadId;
            long generation = (Volatile.Read(ref _claim) >> 32) + 1;
            // Everything the blocks need was written before this full fence; a helper reads it only after a claim.
            Volatile.Write(ref _helperStartedAt, 0);
            _publishedAt = System.Diagnostics.Stopwatch.GetTimestamp();
            Interlocked.Exchange(ref _claim, (generation << 32) | ((long)_count << 16));
        }

        private void PostHelpers(int helpers)
        {
            // Helpers that moved on to this call from the one before count as posted.
            int missing = Math.Min(helpers, Lz4ParallelTiming.MaxWorkItemsPerCall) - Volatile.Read(ref _queued) - Volatile.Read(ref _joined);
            if (missing > 0)
            {
                // Counted before posting: a helper may run (and uncount itself) before Post returns.
                Interlocked.Add(ref _queued, missing);
                // Idle long-lived helpers first (no thread-pool queue, and often still spinning from the last call);
                // thread-pool items for the rest, e.g. when concurrent callers keep the helpers busy.
                for (int i = Lz4ParallelHelpers.Post(this, missing); i < missing; i++)
                {
#if NETCOREAPP3_0_OR_GREATER
                    ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
#else
                    ThreadPool.UnsafeQueueUserWorkItem(s_execute, this);
#endif
                }
            }
        }

        /// <summary>
        /// After the caller has claimed its last block: while this call's helpers finish theirs, claims and processes
        /// blocks of the call published after it (<see cref="StartAfter"/>), one at a time; then waits for the helpers,
        /// and posts the helpers the next call still wants. A failure in the next call's block is that call's, thrown
        /// when it completes.
        /// </summary>
        protected void ClaimSuccessorWhileHelpersFinish()
        {
            Stop();
            Lz4ParallelJob? next = Volatile.Read(ref _successor);
            while (next != null && Volatile.Read(ref _active) != 0 && Volatile.Read(ref next._failure) == null)
            {
                try
                {
                    if (!next.ClaimOne())
                        break;
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref next._failure, e, null);
                    next.ExhaustClaims();
                }
            }
            StopAndWaitForHelpers();
            // No helper of this call is active: none reads the link any more.
            _successor = null;
            if (next != null)
            {
                int deferred = next._deferred;
                next._deferred = 0;
                if (!next.IsExhausted)
                    next.PostHelpers(deferred);
            }
        }

        private bool IsExhausted
        {
            get
            {
                long claim = Volatile.Read(ref _claim);
                return (int)(claim & 0xFFFF) >= (int)((claim >> 16) & 0xFFFF);
            }
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
            if (Volatile.Read(ref _done[index]) == 0)
                SpinBriefly(ref _done[index], index);
            var spinner = new SpinWait();
            while (Volatile.Read(ref _done[index]) == 0)
            {
                if (Volatile.Read(ref _failure) != null)
                    return false;
                if (_stopped && Volatile.Read(ref _active) == 0)
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

        /// <summary>Spins until <paramref name="word"/> is no longer what it is waited on to change from, a failure is recorded, or the spin budget is spent.</summary>
        /// <param name="word">A done flag (waited on to become non-zero) or the active count (waited on to become zero).</param>
        /// <param name="index">The block of a done flag, or -1 for the active count.</param>
        private void SpinBriefly(ref int word, int index)
        {
            // Spin only when a helper started promptly (a core was free). On a busy
            // machine the helper runs late, and a spinning caller would keep its core from looking idle, so the
            // scheduler would not move the helper (or another caller) onto it: there the caller parks at once.
            long helperStartedAt = Volatile.Read(ref _helperStartedAt);
            if (helperStartedAt == 0 || helperStartedAt - _publishedAt > s_promptTicks)
                return;
            long deadline = System.Diagnostics.Stopwatch.GetTimestamp() + s_callerSpinTicks;
            for (int i = 1; ; i++)
            {
                int value = Volatile.Read(ref word);
                if ((index >= 0) == (value != 0) || Volatile.Read(ref _failure) != null)
                    return;
                if (index >= 0 && _stopped && Volatile.Read(ref _active) == 0)
                    return;
                if ((i & 7) == 0)
                {
                    long now = System.Diagnostics.Stopwatch.GetTimestamp();
                    if (now > deadline)
                        return;
                    Thread.Yield();
                    // Another thread got the core during the yield: no core to spare, park instead of spinning.
                    if (System.Diagnostics.Stopwatch.GetTimestamp() - now > Lz4ParallelHelpers.YieldedTicks)
                        return;
                }
                else
                {
                    Thread.SpinWait(30);
                }
            }
        }

        /// <summary>Claims no more blocks (the caller only).</summary>
        protected void Stop()
        {
            _stopped = true;
            ExhaustClaims();
        }

        /// <summary>
        /// Stops claims and waits until no helper is active (they only touch the caller's memory while active).
        /// </summary>
        protected void StopAndWaitForHelpers()
        {
            Stop();
            if (Volatile.Read(ref _active) != 0)
                SpinBriefly(ref _active, -1);
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
            Volatile.Write(ref _running, 0);
        }

        /// <summary>
        /// Whether a call is running on this job (between publishing its blocks and its last wait for helpers). Read by
        /// a helper after it helped, to keep spinning while the caller finishes its own last block: the caller's next
        /// call comes right after. Reading it touches no memory of the call.
        /// </summary>
        internal bool IsRunning => Volatile.Read(ref _running) != 0;

        /// <summary>Rethrows the exception a helper hit, if any (a bug, not bad input: bad input is a block status).</summary>
        protected void ThrowIfHelperFailed()
        {
            Exception? failure = Volatile.Read(ref _failure);
            if (failure != null)
                ExceptionDispatchInfo.Capture(failure).Throw();
        }

#if NETCOREAPP3_0_OR_GREATER
        /// <inheritdoc/>
        void IThreadPoolWorkItem.Execute()
        {
            Lz4ParallelJob? none = null;
            RunAsHelper(ref none);
        }
#endif

        /// <summary>Runs as a work item on a <see cref="Lz4ParallelHelpers"/> thread (or a pool thread), moving on to the calls published after this one.</summary>
        /// <param name="helperSlot">The helper's post slot, cleared once nothing is left to claim (see <see cref="Execute"/>).</param>
        /// <returns>The last call in which it processed at least one block (it got a core while that call had blocks to claim), or null.</returns>
        internal Lz4ParallelJob? RunAsHelper(ref Lz4ParallelJob? helperSlot)
        {
            Lz4ParallelJob? helped = null;
            Lz4ParallelJob? job = this;
            bool queued = true;
            while (job != null)
            {
                int processed = job.Execute(ref helperSlot, queued, out Lz4ParallelJob? next);
                if (processed > 0)
                {
                    helped = job;
                    Lz4FramesEventSource log = Lz4FramesEventSource.Log;
                    if (log.IsEnabled())
                        log.HelperBlocks(job._callerThreadId, processed);
                }
                job = next;
                queued = false;
            }
            return helped;
        }

        private int Execute(ref Lz4ParallelJob? helperSlot, bool queued, out Lz4ParallelJob? next)
        {
            int processed = 0;
            next = null;
            if (queued)
            {
                int left = Interlocked.Decrement(ref _queued);
                Debug.Assert(left >= 0, "a work item runs only once it was counted queued");
                // Counted as active before reading the claim word, so a caller that saw every block claimed also sees
                // this helper, and waits for it if it claimed one. (A helper moving on from the call before was
                // counted active here by that call, before it stopped counting there.)
                Interlocked.Increment(ref _active);
                Interlocked.CompareExchange(ref _helperStartedAt, System.Diagnostics.Stopwatch.GetTimestamp(), 0);
            }
            else
            {
                // It was running: as prompt as a helper can be, so the caller may spin for it.
                Interlocked.CompareExchange(ref _helperStartedAt, _publishedAt, 0);
            }
            try
            {
                processed = ClaimLoop(caller: false);
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref _failure, e, null);
                ExhaustClaims();
            }
            finally
            {
                // The call published after this one, if any: counted active there before this helper stops counting
                // here, so the caller, which completes this call before that one, always sees it.
                next = Volatile.Read(ref _failure) == null ? Volatile.Read(ref _successor) : null;
                if (next != null)
                {
                    Interlocked.Increment(ref next._joined);
                    Interlocked.Increment(ref next._active);
                }
                else
                {
                    // A helper thread is free for the next call before it stops counting as active: the caller returns
                    // once no helper is active, and its next call must find the helper free (and still spinning), not
                    // busy for the few instructions in between (then it would queue a pool item instead).
                    Volatile.Write(ref helperSlot, null);
                }
                int active = Interlocked.Decrement(ref _active);
                Debug.Assert(active >= 0, "a helper stops counting as active once");
                _signal.Set();
            }
            return processed;
        }

        /// <summary>Claims and processes one block on the calling thread; <see langword="false"/> when none is left.</summary>
        private bool ClaimOne()
        {
            if (!TryClaim(out int index))
                return false;
            Process(index, caller: true);
            return true;
        }

        private int ClaimLoop(bool caller)
        {
            int processed = 0;
            while (TryClaim(out int index))
            {
                Process(index, caller);
                processed++;
            }
            return processed;
        }

        /// <summary>Claims the call's next block; <see langword="false"/> when every one is claimed.</summary>
        private bool TryClaim(out int index)
        {
            while (true)
            {
                long claim = Volatile.Read(ref _claim);
                index = (int)(claim & 0xFFFF);
                if (index >= (int)((claim >> 16) & 0xFFFF))
                    return false;
                if (Interlocked.CompareExchange(ref _claim, claim + 1, claim) == claim)
                    return true;
            }
        }

        private void Process(int index, bool caller)
        {
            Debug.Assert(Volatile.Read(ref _done[index]) == 0, "a block is claimed once per call");
            ProcessBlock(index);
            Volatile.Write(ref _done[index], 1);
            if (caller)
                AfterCallerBlock();
            else
                _signal.Set();
        }

        private void ExhaustClaims()
        {
            while (true)
            {
                long claim = Volatile.Read(ref _claim);
                long count = (claim >> 16) & 0xFFFF;
                long exhausted = (claim & ~0xFFFFL) | count;
                if (claim == exhausted || Interlocked.CompareExchange(ref _claim, exhausted, claim) == claim)
                    return;
            }
        }
    }
}
