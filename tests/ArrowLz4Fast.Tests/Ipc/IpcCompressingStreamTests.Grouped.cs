using System;
using System.Collections.Generic;
using Apache.Arrow;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Small batches, too small to be worth the helpers one by one, are grouped and compressed together on them while
    /// the writer serializes the next ones; the output stays the bytes the Flight engine gives message by message.
    /// </summary>
    public partial class IpcCompressingStreamTests
    {
        /// <summary>
        /// Arrow Java's 1,000 batches of 10 rows (tens of bytes a buffer, far under the parallel minimum): at degree 2 a
        /// helper encodes buffers for the writer's thread. Before grouping, every one of them was encoded on the writer's
        /// thread, in order, and no helper ever worked for it.
        /// </summary>
        [Fact]
        public void Small_batches_are_grouped_and_compressed_on_the_helpers()
        {
            if (Environment.ProcessorCount < 2)
                return;
            List<RecordBatch> batches = Batches("ipc/java/tiny_batches.arrows");
            try
            {
                byte[] expected = CompressedMessageByMessage(IpcMessages.Of(WritePlain(batches)), 0);
                using var events = new FramesEvents();
                byte[] written = System.Array.Empty<byte>();
                // The helpers are shared with the other tests running meanwhile: write until one has worked for this thread.
                int writes = events.CallUntilAHelperWorks(_ => written = WriteCompressed(batches, file: false, IpcWrapped.Options(2)));
                Assert.True(events.HelperBlocksForThisThread() > 0, $"no helper encoded anything for this thread in {writes} writes of {batches.Count} small batches");
                AssertSameBytes(expected, written, "degree 2");
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }
    }
}
