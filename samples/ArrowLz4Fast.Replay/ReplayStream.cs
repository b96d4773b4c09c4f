using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Replay
{
    /// <summary>One IPC stream or file held in memory, read whole with a given codec factory.</summary>
    internal sealed record ReplayStream(string Name, byte[] Bytes, bool IsFile)
    {
        public List<RecordBatch> ReadAll(ICompressionCodecFactory factory)
        {
            var batches = new List<RecordBatch>();
            using ArrowStreamReader reader = Open(factory);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
                batches.Add(batch);
            return batches;
        }

        /// <summary>Reads and drops every batch, as a consumer that processes batches one at a time does.</summary>
        /// <param name="factory">The codec factory.</param>
        /// <param name="allocator">Where the buffers come from; <see langword="null"/> for Arrow's default.</param>
        public long Drain(ICompressionCodecFactory factory, MemoryAllocator? allocator = null)
        {
            long rows = 0;
            using ArrowStreamReader reader = Open(factory, allocator);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        private ArrowStreamReader Open(ICompressionCodecFactory factory, MemoryAllocator? allocator = null)
        {
            var stream = new MemoryStream(Bytes, writable: false);
            allocator ??= MemoryAllocator.Default.Value;
            return IsFile
                ? new ArrowFileReader(stream, allocator, factory, leaveOpen: false)
                : new ArrowStreamReader(stream, allocator, factory, leaveOpen: false);
        }
    }
}
