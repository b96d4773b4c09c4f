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
    /// Small batches at two threads or more go through the message ring: the writer's thread verifies and copies each,
    /// one worker compresses them, and the writer writes them in order. The bytes are those of the in-order path; a
    /// failure on the worker is the one the in-order path throws, and the output then holds whole messages from before
    /// the failing one only.
    /// </summary>
    public partial class IpcCompressingStreamTests
    {
        [Fact]
        public void Small_batches_at_two_threads_are_compressed_on_a_helper_and_a_flush_writes_them_all()
        {
            List<RecordBatch> batches = Batches("ipc/java/tiny_batches.arrows");
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            List<IpcMutator.Message> framing = IpcMutator.Messages(plain);
            List<IpcMessages.Message> messages = IpcMessages.Of(plain);
            Assert.True(messages.Count > 100, $"{messages.Count} messages");
            byte[] expected = CompressedMessageByMessage(messages, minSpaceSavings: 0);
            // Flushed after half the messages, the output is those messages, compressed (the end marker aside).
            int half = messages.Count / 2;
            byte[] flushed = CompressedMessageByMessage(messages.Take(half).ToList(), minSpaceSavings: 0);
            flushed = flushed.AsSpan(0, flushed.Length - 8).ToArray();
            int cut = framing[half].Start;

            using var events = new FramesEvents();
            // The worker is a helper's work item: it may start late when other tests hold the cores, so write until it ran.
            int writes = events.CallUntilAHelperWorks(_ =>
            {
                using var output = new MemoryStream();
                using (var compressing = new IpcCompressingStream(output, IpcWrapped.Options(2), leaveOpen: true))
                {
                    compressing.Write(plain, 0, cut);
                    compressing.Flush();
                    AssertSameBytes(flushed, output.ToArray(), $"flushed after {half} messages");
                    compressing.Write(plain, cut, plain.Length - cut);
                }
                AssertSameBytes(expected, output.ToArray(), "the whole stream");
            });
            Assert.True(events.HelperBlocksForThisThread() > 0, $"no helper compressed a small batch in {writes} writes of the stream");
        }

        [Fact]
        public async System.Threading.Tasks.Task Streams_on_several_threads_at_once_each_give_the_bytes_of_one_thread()
        {
            // More writers than helpers: the ring workers of most streams find no helper free and go to the thread
            // pool, or start late, and the writers take the slots no worker claimed. Every output must still be the
            // one-thread bytes, and no stream may wait for a worker that never runs (bounded, so a hang fails).
            List<RecordBatch> batches = Batches("ipc/java/tiny_batches.arrows");
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            byte[] expected = CompressedMessageByMessage(IpcMessages.Of(plain), minSpaceSavings: 0);
            int[] sizes = { 7, 4093, plain.Length };
            int[] degrees = { 2, 3, 8 };
            const int Writers = 6;
            const int Rounds = 12;
            var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
            var writers = new System.Threading.Tasks.Task[Writers];
            for (int w = 0; w < Writers; w++)
            {
                int writer = w;
                writers[w] = System.Threading.Tasks.Task.Factory.StartNew(() =>
                {
                    for (int round = 0; round < Rounds; round++)
                    {
                        int size = sizes[(writer + round) % sizes.Length];
                        int degree = degrees[(writer + (2 * round)) % degrees.Length];
                        using var output = new MemoryStream();
                        using (var compressing = new IpcCompressingStream(output, IpcWrapped.Options(degree), leaveOpen: true))
                        {
                            for (int at = 0; at < plain.Length; at += size)
                                compressing.Write(plain, at, Math.Min(size, plain.Length - at));
                            // A flush in the middle of the rounds: it waits for the ring, whoever holds its slots.
                            if (round % 3 == 1)
                                compressing.Flush();
                        }
                        if (!output.ToArray().AsSpan().SequenceEqual(expected))
                            failures.Enqueue($"writer {writer}, round {round}, degree {degree}, writes of {size}: {output.Length} bytes, not the {expected.Length} of one thread");
                    }
                }, System.Threading.Tasks.TaskCreationOptions.LongRunning);
            }
            System.Threading.Tasks.Task all = System.Threading.Tasks.Task.WhenAll(writers);
            Assert.True(await System.Threading.Tasks.Task.WhenAny(all, System.Threading.Tasks.Task.Delay(TimeSpan.FromMinutes(3))) == all, "the writers did not finish within 3 minutes");
            await all;
            Assert.Empty(failures);
        }

        [Fact]
        public void A_small_batch_that_fails_on_the_worker_fails_as_in_order_and_writes_only_messages_before_it()
        {
            RecordBatch[] batches = TestTables.Batches(3, 1024, seed: 5);
            byte[] plain = WritePlain(batches);
            ArrowData.DisposeAll(batches);
            List<IpcMutator.Message> framing = IpcMutator.Messages(plain);
            IpcMutator.Message second = framing.Where(m => Parse(plain, m).HeaderType == IpcMessageParser.HeaderRecordBatch).ElementAt(1);
            byte[] input = WithHeaderTypeInBodyLength(plain, second);

            // One thread: the in-order path, the reference. The stream fails at the batch, after the ones before it.
            (string reference, byte[] before, _) = WriteUntilFailure(input, IpcWrapped.Options(1), input.Length);
            Assert.True(before.Length > 0, "the schema and the first batch are written");
            AssertWholeMessages(before, "before the refused batch");

            // The batches are far under the parallel minimum: at two threads and more they go to the ring.
            foreach (int degree in new[] { 2, 8 })
            {
                foreach (int size in new[] { 7, 4093, input.Length })
                {
                    (string failure, byte[] written, string trace) = WriteUntilFailure(input, IpcWrapped.Options(degree, minimumParallelLength: 1 << 20), size);
                    Assert.Equal(reference, failure);
                    // Refused when the new metadata is read back, which a ring slot does (on the worker, or here when
                    // the worker had not claimed it), not by the writer's verification of the input.
                    Assert.Contains(nameof(IpcRingSlot), trace);
                    // Whole messages from before it only: those still in the ring when it failed are not written.
                    Assert.True(before.AsSpan().StartsWith(written), $"degree {degree}, writes of {size}: {written.Length} bytes, not a part of the {before.Length} written at one thread");
                    AssertWholeMessages(written, $"degree {degree}, writes of {size}");
                }
            }
        }

        /// <summary>
        /// Writes <paramref name="input"/> in pieces, then flushes, until the stream throws; returns the failure's
        /// message (the inner offset included), the output then and where it was thrown. Every later call throws; disposing does not.
        /// </summary>
        private static (string Failure, byte[] Output, string Trace) WriteUntilFailure(byte[] input, Lz4FastOptions options, int size)
        {
            using var output = new MemoryStream();
            var compressing = new IpcCompressingStream(output, options, leaveOpen: true);
            InvalidDataException failure = Assert.Throws<InvalidDataException>(() =>
            {
                for (int at = 0; at < input.Length; at += size)
                    compressing.Write(input, at, Math.Min(size, input.Length - at));
                compressing.Flush();
            });
            Assert.Throws<InvalidOperationException>(() => compressing.Write(input, 0, 1));
            Assert.Throws<InvalidOperationException>(() => compressing.Flush());
            compressing.Dispose();
            string inner = failure.InnerException is Frames.Lz4FrameException frame ? $" at {frame.Offset}" : string.Empty;
            return (failure.Message + inner, output.ToArray(), failure.StackTrace ?? string.Empty);
        }

        /// <summary>
        /// The stream with <paramref name="batch"/>'s Message.header_type pointed at its bodyLength, which grows (zeros
        /// appended) to end in the record batch type: it verifies as it comes, but its rewrite for the compressed body is
        /// refused (<see cref="A_header_type_lying_in_body_length_is_refused"/>).
        /// </summary>
        private static byte[] WithHeaderTypeInBodyLength(byte[] plain, IpcMutator.Message batch)
        {
            byte[] metadata = plain.AsSpan(batch.Metadata, batch.MetadataLength).ToArray();
            IpcMessage parsed = Parse(plain, batch);
            BinaryPrimitives.WriteUInt16LittleEndian(metadata.AsSpan(parsed.Root.VTable + 4 + (2 * IpcMessageParser.MessageHeaderType)), (ushort)(parsed.BodyLengthField - parsed.Root.Position));
            long bodyLength = batch.BodyLength;
            while ((bodyLength & 0xFF) != IpcMessageParser.HeaderRecordBatch)
                bodyLength++;
            BinaryPrimitives.WriteInt64LittleEndian(metadata.AsSpan(parsed.BodyLengthField), bodyLength);

            using var hostile = new MemoryStream();
            hostile.Write(plain, 0, batch.Start);
            Span<byte> prefix = stackalloc byte[8];
            BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
            BinaryPrimitives.WriteInt32LittleEndian(prefix.Slice(4), metadata.Length);
            hostile.Write(prefix);
            hostile.Write(metadata);
            hostile.Write(plain, batch.Body, (int)batch.BodyLength);
            hostile.Write(new byte[bodyLength - batch.BodyLength]);
            int after = batch.Body + (int)batch.BodyLength;
            hostile.Write(plain, after, plain.Length - after);
            return hostile.ToArray();
        }
    }
}
