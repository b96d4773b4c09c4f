using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A projected record batch is served with metadata that holds only the selected fields' nodes and buffers: the
    /// unselected entries, most of a wide batch's metadata, are not passed on to Arrow's reader (which copies what it
    /// is served). Pyarrow's, Java's and Rust's writers, LZ4 and ZSTD bodies; the columns themselves are compared with
    /// the codec path's by <see cref="IpcProjectionTests"/>.
    /// </summary>
    public sealed class IpcProjectedMetadataTests
    {
        // The LZ4 rewrite appends a copy of the batch's vtable; both rewrites align the metadata to 8 bytes.
        private const int Slack = 64;

        [Theory]
        [InlineData("ipc/pyarrow/wide.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        [InlineData("ipc/rust/wide.arrows")]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/pyarrow/numeric_zstd.arrows")]
        public void A_projected_batch_is_served_without_the_unselected_nodes_and_buffers(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            List<(int Length, int Nodes, int Buffers)> original = Batches(bytes);
            Assert.NotEmpty(original);
            int fields = original[0].Nodes;

            using var stream = new IpcDecompressingStream(bytes.AsMemory(), new Lz4FastOptions { Projection = IpcProjection.ByIndex(fields - 1) });
            using var output = new MemoryStream();
            stream.CopyTo(output);
            List<(int Length, int Nodes, int Buffers)> served = Batches(output.ToArray());

            Assert.Equal(original.Count, served.Count);
            for (int b = 0; b < original.Count; b++)
            {
                (int length, int nodes, int buffers) = original[b];
                Assert.True(served[b].Nodes < nodes, $"batch {b}: {served[b].Nodes} of {nodes} nodes served");
                int unselected = 16 * ((nodes - served[b].Nodes) + (buffers - served[b].Buffers));
                Assert.True(
                    served[b].Length <= length - unselected + Slack,
                    $"batch {b}: {served[b].Length} bytes of metadata served for {length}, of which {unselected} are unselected nodes and buffers");
            }
        }

        /// <summary>Each record batch's metadata length, field nodes and buffers.</summary>
        private static List<(int Length, int Nodes, int Buffers)> Batches(byte[] stream)
        {
            var batches = new List<(int, int, int)>();
            foreach (IpcMutator.Message m in IpcMutator.Messages(stream))
            {
                var reader = new FlatReader(stream, m.Metadata, m.MetadataLength, m.Metadata);
                IpcMessage message = IpcMessageParser.Parse(reader, buffers: true);
                if (message.HeaderType != IpcMessageParser.HeaderRecordBatch)
                    continue;
                (_, int nodes) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
                batches.Add((m.MetadataLength, nodes, message.BufferCount));
            }
            return batches;
        }
    }
}
