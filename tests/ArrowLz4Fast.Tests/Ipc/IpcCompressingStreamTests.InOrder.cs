using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The in-order path (one thread, or a batch too small or too lopsided to spread): each buffer is encoded as its
    /// bytes arrive, from the writer's span when it comes whole, at its final place in the body. Whatever the write
    /// sizes and thread count, the output is the bytes the Flight engine gives message by message.
    /// </summary>
    public partial class IpcCompressingStreamTests
    {
        public static IEnumerable<object[]> InOrderStreams() =>
            new[] { "ipc/java/tiny_batches.arrows", "ipc/rust/nested_dict.arrows", "ipc/java/wide.arrows", "ipc/pyarrow/incompressible.arrows" }
                .Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(InOrderStreams))]
        public void Every_degree_and_write_size_gives_the_bytes_of_message_by_message_compression(string file)
        {
            List<RecordBatch> batches = Batches(file);
            try
            {
                byte[] plain = WritePlain(batches);
                List<IpcMessages.Message> messages = IpcMessages.Of(plain);
                foreach (double minSpaceSavings in new[] { 0, 0.6 })
                {
                    byte[] expected = CompressedMessageByMessage(messages, minSpaceSavings);
                    if (minSpaceSavings == 0)
                        AssertSomeBatchCompressed(expected, expected: !file.Contains("incompressible"));
                    // Byte by byte only where it stays quick; odd sizes split buffers everywhere, whole writes split none.
                    int[] writeSizes = plain.Length < 1 << 20 ? new[] { 1, 7, 4093, plain.Length } : new[] { 7, 4093, plain.Length };
                    foreach (int degree in new[] { 1, 2, 8 })
                    {
                        var options = IpcWrapped.Options(degree, minimumParallelLength: 1024);
                        string what = $"{file}, degree {degree}, min space savings {minSpaceSavings}";
                        // As Arrow's writer writes it: metadata, then each buffer and its padding, one write each.
                        AssertSameBytes(expected, WriteCompressed(batches, file: false, options, minSpaceSavings: minSpaceSavings), $"{what}, Arrow's writes");
                        foreach (int size in writeSizes)
                            AssertSameBytes(expected, WriteInPieces(plain, size, options, minSpaceSavings), $"{what}, writes of {size}");
                    }
                }
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        [Fact]
        public void Batches_of_buffers_that_each_spread_over_the_threads_are_encoded_as_they_arrive()
        {
            // pyarrow's strings: 0.4, 0.6 and 1.9 MB buffers, each two blocks or more at the default 256 KiB: every one
            // keeps two threads busy by itself, so the batch goes in order, each frame's blocks on both threads.
            List<RecordBatch> batches = Batches("ipc/pyarrow/strings.arrows");
            try
            {
                Assert.True(batches.Count >= 2, $"{batches.Count} batches");
                var options = IpcWrapped.Options(2);
                using var output = new MemoryStream();
                using (var compressing = new IpcCompressingStream(output, options, leaveOpen: true))
                using (var writer = new ArrowStreamWriter(compressing, batches[0].Schema, leaveOpen: true))
                {
                    for (int i = 0; i < batches.Count; i++)
                    {
                        writer.WriteRecordBatch(batches[i]);
                        // Encoded as it arrived: the batch is in the output when its last write returns, not held to
                        // compress on the helpers until the next message.
                        List<IpcMutator.Message> written = IpcMutator.Messages(output.ToArray());
                        Assert.Equal(i + 2, written.Count);
                        Assert.True(written[i + 1].Lz4, $"batch {i} compressed");
                    }
                    writer.WriteEnd();
                }
                byte[] plain = WritePlain(batches);
                byte[] expected = CompressedMessageByMessage(IpcMessages.Of(plain), 0);
                AssertSameBytes(expected, output.ToArray(), "Arrow's writes, degree 2");
                foreach (int size in new[] { 7, 4093, 300_001, plain.Length })
                    AssertSameBytes(expected, WriteInPieces(plain, size, options, 0), $"writes of {size}, degree 2");
            }
            finally
            {
                ArrowData.DisposeAll(batches);
            }
        }

        [Fact]
        public void A_batch_whose_frames_spread_over_the_helpers_waits_for_the_batch_still_on_them()
        {
            // A small batch (pyarrow's strings, first 64 rows) goes to the helpers; the whole batch after it spreads each
            // frame's blocks over them. It starts only once the small one is done, so the threads stay within the
            // degree: the small batch is in the output as soon as the large one's metadata has arrived.
            List<RecordBatch> batches = Batches("ipc/pyarrow/strings.arrows");
            var small = new List<RecordBatch> { Head(batches[0], 64), batches[1] };
            try
            {
                byte[] plain = WritePlain(small);
                List<IpcMutator.Message> messages = IpcMutator.Messages(plain);
                Assert.Equal(3, messages.Count);
                var options = IpcWrapped.Options(2, minimumParallelLength: 1024);
                using var output = new MemoryStream();
                List<IpcMutator.Message> early;
                using (var compressing = new IpcCompressingStream(output, options, leaveOpen: true))
                {
                    compressing.Write(plain, 0, messages[2].Body);
                    early = IpcMutator.Messages(output.ToArray());
                    compressing.Write(plain, messages[2].Body, plain.Length - messages[2].Body);
                }
                Assert.Equal(2, early.Count);
                Assert.True(early[1].Lz4, "the small batch compressed");
                AssertSameBytes(CompressedMessageByMessage(IpcMessages.Of(plain), 0), output.ToArray(), "degree 2");
            }
            finally
            {
                small[0].Dispose();
                ArrowData.DisposeAll(batches);
            }
        }

        /// <summary>The first <paramref name="rows"/> rows of a batch of string columns, copied.</summary>
        private static RecordBatch Head(RecordBatch batch, int rows)
        {
            var columns = new List<IArrowArray>();
            for (int c = 0; c < batch.ColumnCount; c++)
            {
                var strings = (StringArray)batch.Column(c);
                var builder = new StringArray.Builder();
                for (int i = 0; i < rows; i++)
                {
                    if (strings.IsNull(i))
                        builder.AppendNull();
                    else
                        builder.Append(strings.GetString(i));
                }
                columns.Add(builder.Build());
            }
            return new RecordBatch(batch.Schema, columns, rows);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void A_steady_stream_allocates_nothing_per_message(int degree)
        {
            List<RecordBatch> batches = Batches("ipc/java/tiny_batches.arrows");
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            List<IpcMutator.Message> messages = IpcMutator.Messages(plain);
            Assert.True(messages.Count > 100, $"{messages.Count} messages");
            // The first quarter warms the stream's arrays up; the rest, all but the end marker, is measured.
            IpcMutator.Message first = messages[messages.Count / 4];
            int end = plain.Length - 8;
            // Room for all the output at once: a growing output would be counted.
            using var output = new MemoryStream(2 * plain.Length);
            using var compressing = new IpcCompressingStream(output, IpcWrapped.Options(degree, minimumParallelLength: 1024), leaveOpen: true);
            compressing.Write(plain, 0, first.Start);
            long before = GC.GetAllocatedBytesForCurrentThread();
            compressing.Write(plain, first.Start, end - first.Start);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            int measured = messages.Count - (messages.Count / 4);
            Assert.True(allocated < 8L * measured, $"{allocated} bytes over {measured} messages");
            AssertSomeBatchCompressed(output.ToArray(), expected: true);
        }

        /// <summary>The Flight engine's output for each message, framed as a stream: an oracle apart from the stream's code.</summary>
        private static byte[] CompressedMessageByMessage(List<IpcMessages.Message> messages, double minSpaceSavings)
        {
            var options = IpcWrapped.Options(1);
            return IpcMessages.Stream(messages.Select(m =>
                IpcMessageCompressor.TryCompress(m.Metadata, m.Body, options, minSpaceSavings, out ReadOnlyMemory<byte> metadata, out ReadOnlyMemory<byte> body)
                    ? (metadata, body)
                    : ((ReadOnlyMemory<byte>)m.Metadata, (ReadOnlyMemory<byte>)m.Body)));
        }

        private static byte[] WriteInPieces(byte[] plain, int size, Lz4FastOptions options, double minSpaceSavings)
        {
            using var output = new MemoryStream();
            using (var compressing = new IpcCompressingStream(output, options, leaveOpen: true, minSpaceSavings))
            {
                for (int at = 0; at < plain.Length; at += size)
                    compressing.Write(plain, at, Math.Min(size, plain.Length - at));
            }
            return output.ToArray();
        }

        private static void AssertSameBytes(byte[] expected, byte[] actual, string what)
        {
            int differs = expected.AsSpan().CommonPrefixLength(actual);
            Assert.True(differs == expected.Length && differs == actual.Length,
                $"{what}: the output differs from byte {differs} ({actual.Length} bytes, {expected.Length} expected)");
        }
    }
}
