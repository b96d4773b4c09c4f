using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;

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
        public long Drain(ICompressionCodecFactory factory)
        {
            long rows = 0;
            using ArrowStreamReader reader = Open(factory);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        private ArrowStreamReader Open(ICompressionCodecFactory factory)
        {
            var stream = new MemoryStream(Bytes, writable: false);
            return IsFile ? new ArrowFileReader(stream, factory) : new ArrowStreamReader(stream, factory);
        }
    }
}
