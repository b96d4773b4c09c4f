using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Linq;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Records the events of the ArrowLz4Fast.Frames EventSource while it lives, with the managed thread each was raised
    /// on, so a test can count what its own calls did although other tests run meanwhile.
    /// </summary>
    public sealed class FramesEvents : EventListener
    {
        // Initialized before the base constructor, which reports the sources that exist already.
        private readonly ConcurrentQueue<(int Id, int Thread, int[] Payload)> _events = new();

        public const int ParallelDecode = 1;
        public const int ParallelEncode = 2;
        public const int HelperBlocks = 3;
        public const int HelperStarted = 4;
        public const int HelperExited = 5;

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "ArrowLz4Fast.Frames")
                EnableEvents(eventSource, EventLevel.Verbose);
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            if (eventData.EventSource.Name != "ArrowLz4Fast.Frames")
                return;
            int[] payload = eventData.Payload?.Select(Convert.ToInt32).ToArray() ?? Array.Empty<int>();
            _events.Enqueue((eventData.EventId, Environment.CurrentManagedThreadId, payload));
        }

        /// <summary>The payloads of events <paramref name="id"/> raised on the current thread.</summary>
        public IReadOnlyList<int[]> OnThisThread(int id)
        {
            int thread = Environment.CurrentManagedThreadId;
            return _events.Where(e => e.Id == id && e.Thread == thread).Select(e => e.Payload).ToList();
        }

        /// <summary>Blocks helper threads processed for calls made on the current thread.</summary>
        public long HelperBlocksForThisThread()
        {
            int thread = Environment.CurrentManagedThreadId;
            return _events.Where(e => e.Id == HelperBlocks && e.Payload[0] == thread).Sum(e => (long)e.Payload[1]);
        }

        /// <summary>
        /// Makes <paramref name="call"/> (given its index) until a helper thread has processed a block for this thread, or
        /// for a minute: other tests share the cores and the helpers. Returns how many calls were made.
        /// </summary>
        public int CallUntilAHelperWorks(Action<int> call)
        {
            var tried = System.Diagnostics.Stopwatch.StartNew();
            int calls = 0;
            for (; tried.Elapsed < TimeSpan.FromSeconds(60) && HelperBlocksForThisThread() == 0; calls++)
                call(calls);
            return calls;
        }

        /// <summary>Blocks the parallel decoder kept (decoded without falling back) for calls on the current thread.</summary>
        public long BlocksKeptOnThisThread() => OnThisThread(ParallelDecode).Sum(p => (long)p[1]);

        /// <summary>Forgets what was recorded.</summary>
        public void Clear()
        {
            while (_events.TryDequeue(out _))
            {
            }
        }
    }
}
