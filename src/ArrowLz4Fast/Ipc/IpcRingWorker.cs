using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The one thread that takes <see cref="IpcMessageRing"/>'s slots: a parallel job of one block, posted to a helper
    /// (or queued to the pool) like any call's work item, so it counts as one of the degree's threads. The writer never
    /// runs the block itself; it takes slots the worker has not claimed instead.
    /// </summary>
    internal sealed class IpcRingWorker : Lz4ParallelJob
    {
        private readonly IpcMessageRing _ring;

        public IpcRingWorker(IpcMessageRing ring) => _ring = ring;

        /// <summary>Posts the worker (the call before ended).</summary>
        public void Begin()
        {
            Prepare(1);
            Start(1);
        }

        /// <summary>Ends the call: a worker not yet started never runs, one running is waited for.</summary>
        public void End() => StopAndWaitForHelpers();

        protected override void ProcessBlock(int index) => _ring.Consume();

        protected override void AfterCallerBlock()
        {
        }
    }
}
