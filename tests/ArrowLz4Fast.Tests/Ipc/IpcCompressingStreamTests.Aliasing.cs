using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The rewritten metadata is read back only when a field written in place may overlap one a reader reads: a
    /// message whose Message.header_type lies in its bodyLength verifies as it comes (bodyLength's low byte is the
    /// record batch type), but the compressed body's length would change its type, so it must still be refused.
    /// </summary>
    public partial class IpcCompressingStreamTests
    {
        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void A_header_type_lying_in_body_length_is_refused(int degree)
        {
            RecordBatch[] batches = TestTables.Batches(1, 4096, seed: 3);
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            IpcMutator.Message batch = IpcMutator.Messages(plain).First(m => Parse(plain, m).HeaderType == IpcMessageParser.HeaderRecordBatch);

            byte[] input = WithHeaderTypeInBodyLength(plain, batch);
            IpcMutator.Message refused = IpcMutator.Messages(input).First(m => m.Start == batch.Start);
            Assert.Equal(IpcMessageParser.HeaderRecordBatch, Parse(input, refused).HeaderType);

            using var output = new MemoryStream();
            var compressing = new IpcCompressingStream(output, IpcWrapped.Options(degree, minimumParallelLength: 1024), leaveOpen: true);
            // Read back, the new metadata's type is the new bodyLength's low byte: the verifier or the comparison refuses it.
            Assert.Throws<InvalidDataException>(() =>
            {
                compressing.Write(input, 0, input.Length);
                compressing.Flush();
            });
            Assert.Throws<InvalidOperationException>(() => compressing.Write(input, 0, 1));
            compressing.Dispose();
            AssertWholeMessages(output.ToArray(), "after the refused message");
        }

        private static IpcMessage Parse(byte[] stream, IpcMutator.Message message) =>
            IpcMessageParser.Parse(new FlatReader(stream, message.Metadata, message.MetadataLength, message.Metadata), buffers: true);
    }
}
