using System;
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
