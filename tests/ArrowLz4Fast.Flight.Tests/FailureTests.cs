using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>Hostile responses, cancellation, dispose and server errors mid-stream, and many concurrent calls, over real gRPC.</summary>
    [Collection(nameof(FailureTests))]
    [CollectionDefinition(nameof(FailureTests), DisableParallelization = true)]
    public sealed class FailureTests : IClassFixture<RawServerFixture>
    {
        private static readonly string s_strings = Corpus.Committed("ipc/rust/strings.arrows");
        private readonly RawServerFixture _server;

        public FailureTests(RawServerFixture server) => _server = server;

        [Fact]
        public async Task A_broken_frame_fails_the_read_of_that_stream_naming_the_message_and_offset()
        {
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(s_strings));
            byte[] body = (byte[])messages[1].Body.Clone();
            body[8] ^= 0xFF; // the first compressed buffer's frame magic
            var payloads = new List<byte[]?> { IpcMessages.FlightData(messages[0].Header, messages[0].Body), IpcMessages.FlightData(messages[1].Header, body) };
            var e = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(payloads));
            Assert.Contains("FlightData message 1 of the DoGet stream", e.Message);
            var frame = Assert.IsType<Lz4FrameException>(e.InnerException);
            Assert.Equal(messages[1].Header.Length + 8, frame.Offset);
        }

        [Fact]
        public async Task A_truncated_header_or_a_malformed_protobuf_fails_the_read_with_InvalidDataException()
        {
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(s_strings));
            byte[] schema = IpcMessages.FlightData(messages[0].Header, messages[0].Body);
            byte[] truncated = IpcMessages.FlightData(messages[1].Header.AsSpan(0, 40).ToArray(), messages[1].Body);
            byte[] wireType7 = { 0x17, 0x00 };
            byte[] runsPast = { 0x12, 0x7F, 0x00 };
            foreach (byte[] hostile in new[] { truncated, wireType7, runsPast })
            {
                var e = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(new List<byte[]?> { schema, hostile }));
                Assert.Contains("FlightData message 1 of the DoGet stream", e.Message);
            }
        }

        [Fact]
        public async Task A_server_error_mid_stream_surfaces_after_the_batches_before_it()
        {
            List<byte[]?> payloads = FlightCorpus.Payloads(Corpus.Committed("ipc/java/tiny_batches.arrows")).Take(4).ToList();
            payloads.Add(null);
            string ticket = RawFlightService.Register(payloads);
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4());
            using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
            int read = 0;
            var e = await Assert.ThrowsAsync<RpcException>(async () =>
            {
                while (await call.ResponseStream.MoveNext(default))
                {
                    call.ResponseStream.Current.Dispose();
                    read++;
                }
            });
            Assert.Equal(StatusCode.Internal, e.StatusCode);
            Assert.Equal(3, read);
        }

        [Fact]
        public async Task Cancellation_and_dispose_mid_stream_end_the_call_and_the_channel_goes_on()
        {
            List<byte[]?> payloads = FlightCorpus.Payloads(Corpus.Committed("ipc/java/tiny_batches.arrows"));
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4());

            using (var cancel = new CancellationTokenSource())
            {
                using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(RawFlightService.Register(payloads)), null, null, cancel.Token);
                Assert.True(await call.ResponseStream.MoveNext(default));
                cancel.Cancel();
                await Assert.ThrowsAnyAsync<Exception>(async () =>
                {
                    while (await call.ResponseStream.MoveNext(default))
                    {
                    }
                });
                Assert.Equal(StatusCode.Cancelled, call.GetStatus().StatusCode);
            }

            FlightRecordBatchStreamingCall disposed = client.GetStream(new FlightTicket(RawFlightService.Register(payloads)));
            Assert.True(await disposed.ResponseStream.MoveNext(default));
            disposed.Dispose();
            await Assert.ThrowsAnyAsync<Exception>(async () =>
            {
                while (await disposed.ResponseStream.MoveNext(default))
                {
                }
            });

            List<RecordBatch> after = await ReadAllAsync(payloads);
            Assert.Equal(1000, after.Count);
            ArrowData.DisposeAll(after);
        }

        [Fact]
        public async Task Thirty_two_concurrent_large_DoGets_on_a_saturated_thread_pool_all_read_correct_data_and_memory_returns()
        {
            string path = Corpus.SharedAvailable ? Corpus.Shared("ipc/java/numeric.arrows") : Corpus.Committed("ipc/pyarrow/strings.arrows");
            List<RecordBatch> expected = ArrowData.ReadAll(path, new Apache.Arrow.Compression.CompressionCodecFactory());
            string ticket = RawFlightService.Register(FlightCorpus.Payloads(path));
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { MaxReceiveMessageSize = null }));
            // Two rounds: the first fills the pools gRPC, Kestrel and the decoder rent from (ArrayPool keeps what it is
            // given back); the second must leave managed memory where the first did, or calls leak.
            await ConcurrentRoundAsync(client, ticket, expected);
            long baseline = Settled();
            await ConcurrentRoundAsync(client, ticket, expected);
            long after = Settled();
            // A round decodes 32 times the stream (over a gigabyte for the shared numeric stream): a leak of calls or
            // batches would show as hundreds of megabytes; pools and other test classes move it by tens.
            Assert.True(after - baseline < 96L << 20, $"managed memory {baseline:N0} -> {after:N0} bytes after a second round of 32 reads");
            ArrowData.DisposeAll(expected);
        }

        private static long Settled()
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            return GC.GetTotalMemory(forceFullCollection: true);
        }

        private static async Task ConcurrentRoundAsync(FlightClient client, string ticket, List<RecordBatch> expected)
        {
            // Busy work items hold every pool thread the pool starts with, for at most a few seconds.
            using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(3));
            Task[] busy = Enumerable.Range(0, Environment.ProcessorCount * 2).Select(_ => Task.Run(() =>
            {
                while (!stop.IsCancellationRequested)
                    Thread.SpinWait(1000);
            })).ToArray();

            Task<int>[] reads = Enumerable.Range(0, 32).Select(_ => Task.Run(async () =>
            {
                using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
                var batches = new List<RecordBatch>();
                while (await call.ResponseStream.MoveNext(default))
                    batches.Add(call.ResponseStream.Current);
                ArrowData.AssertSame(expected, batches);
                ArrowData.DisposeAll(batches);
                return batches.Count;
            })).ToArray();
            int[] counts = await Task.WhenAll(reads).WaitAsync(TimeSpan.FromMinutes(5));
            await Task.WhenAll(busy);
            Assert.All(counts, c => Assert.Equal(expected.Count, c));
        }

        private async Task<List<RecordBatch>> ReadAllAsync(List<byte[]?> payloads)
        {
            string ticket = RawFlightService.Register(payloads);
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4());
            using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
            var batches = new List<RecordBatch>();
            while (await call.ResponseStream.MoveNext(default))
                batches.Add(call.ResponseStream.Current);
            return batches;
        }
    }
}
