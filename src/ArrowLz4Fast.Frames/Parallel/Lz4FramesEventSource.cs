using System.Diagnostics.Tracing;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Events of the parallel paths, for dotnet-trace, dotnet-counters' listeners or an <see cref="EventListener"/>:
    /// which calls went parallel, how many blocks helper threads took, and when helper threads start and exit. Every
    /// call site checks <see cref="EventSource.IsEnabled()"/> first, so with no listener an event costs one field read.
    /// </summary>
    [EventSource(Name = SourceName)]
    internal sealed class Lz4FramesEventSource : EventSource
    {
        /// <summary>The name listeners enable.</summary>
        internal const string SourceName = "ArrowLz4Fast.Frames";

        internal const int ParallelDecodeId = 1;
        internal const int ParallelEncodeId = 2;
        internal const int HelperBlocksId = 3;
        internal const int HelperStartedId = 4;
        internal const int HelperExitedId = 5;

        internal static readonly Lz4FramesEventSource Log = new();

        private Lz4FramesEventSource()
        {
        }

        /// <summary>A frame (or its leading blocks), or a batch of blocks an <see cref="Lz4FrameStream"/> reads ahead, was decoded in parallel; raised on the calling thread.</summary>
        /// <param name="blocks">Blocks the parallel path took on.</param>
        /// <param name="kept">Blocks it finished; the rest were left to the sequential loop.</param>
        [Event(ParallelDecodeId, Level = EventLevel.Verbose)]
        public void ParallelDecode(int blocks, int kept) => WriteEvent(ParallelDecodeId, blocks, kept);

        /// <summary>A source was encoded in parallel; raised on the calling thread.</summary>
        /// <param name="blocks">Blocks of the source.</param>
        [Event(ParallelEncodeId, Level = EventLevel.Verbose)]
        public void ParallelEncode(int blocks) => WriteEvent(ParallelEncodeId, blocks);

        /// <summary>A helper thread processed blocks of one call (into its own buffer, when encoding); raised on the helper.</summary>
        /// <param name="callerThreadId">The managed thread id of the call's caller.</param>
        /// <param name="blocks">Blocks it processed.</param>
        [Event(HelperBlocksId, Level = EventLevel.Verbose)]
        public void HelperBlocks(int callerThreadId, int blocks) => WriteEvent(HelperBlocksId, callerThreadId, blocks);

        /// <summary>A helper thread started.</summary>
        /// <param name="slot">Its slot, below the helper bound.</param>
        [Event(HelperStartedId, Level = EventLevel.Informational)]
        public void HelperStarted(int slot) => WriteEvent(HelperStartedId, slot);

        /// <summary>A helper thread exited after it had no work for the idle period.</summary>
        /// <param name="slot">Its slot.</param>
        [Event(HelperExitedId, Level = EventLevel.Informational)]
        public void HelperExited(int slot) => WriteEvent(HelperExitedId, slot);
    }
}
