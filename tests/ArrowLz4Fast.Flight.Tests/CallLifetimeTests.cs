using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Grpc.Net.Client;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// Every way a read ends early leaves no call open: hundreds of failed, abandoned and cancelled reads of a long stream
    /// on one HTTP/2 connection, then a clean read, with the server's count of open requests back to zero each time.
    /// </summary>
    /// <remarks>
    /// One connection (no second one when it is full, unlike GrpcChannel's own handler): Kestrel allows 100 streams on
    /// it, so calls left open make the next call wait forever, as in the field. Each read is bounded, so that such a wait
    /// fails the test instead of blocking it. The stream, 1,001 messages (428 KB), is far larger than an HTTP/2 stream's
    /// flow-control window: a server whose client stops reading cannot finish it.
    /// </remarks>
    [Collection(nameof(CallLifetimeTests))]
    [CollectionDefinition(nameof(CallLifetimeTests), DisableParallelization = true)]
    public sealed class CallLifetimeTests : IClassFixture<RawServerFixture>, IClassFixture<InterceptedStoreFixture>
    {
        private const int Calls = 300;
        // More than the 100 streams Kestrel allows on a connection.
        private const int Uploads = 120;
        private static readonly TimeSpan s_perRead = TimeSpan.FromSeconds(10);
        // A leaked call never settles, so a long bound costs nothing when the calls end; CI runs the test assemblies side by
        // side on 2 cores, where a reset stream's handler has been seen to end more than 10 s after its client.
        private static readonly TimeSpan s_settle = TimeSpan.FromSeconds(30);
        private static readonly string s_path = Corpus.Committed("ipc/java/tiny_batches.arrows");
        private static readonly List<IpcMessageBytes> s_messages = IpcMessages.Split(File.ReadAllBytes(s_path));
        private static readonly List<byte[]?> s_payloads = FlightCorpus.Payloads(s_path);

        private readonly RawServerFixture _raw;
        private readonly InterceptedStoreFixture _store;

        public CallLifetimeTests(RawServerFixture raw, InterceptedStoreFixture store)
        {
            _raw = raw;
            _store = store;
        }

        [Fact]
        public async Task Failed_DoGet_reads_never_disposed_end_their_calls_with_InvalidDataException()
        {
            using var open = new OpenRequests(_raw.Host);
            using GrpcChannel channel = OneConnection(_raw.Host);
            var client = new FlightClient(channel.WithArrowLz4());
            for (int i = 0; i < Calls; i++)
            {
                (List<byte[]?> payloads, int bad) = Hostile(i);
                // Not disposed, as much user code is written.
                FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(RawFlightService.Register(payloads)));
                var e = await Assert.ThrowsAsync<InvalidDataException>(() => CountAsync(call.ResponseStream).WaitAsync(s_perRead));
                Assert.Contains($"FlightData message {bad} of the DoGet stream", e.Message);
            }
            Assert.Equal(0, await open.SettledAsync(s_settle));
            await AssertCleanReadAsync(client, open);
        }

        [Fact]
        public async Task Failed_DoExchange_reads_never_disposed_end_their_calls_with_InvalidDataException()
        {
            using var open = new OpenRequests(_raw.Host);
            using GrpcChannel channel = OneConnection(_raw.Host);
            var client = new FlightClient(channel.WithArrowLz4());
            FlightDescriptor descriptor = FlightDescriptor.CreatePathDescriptor("exchange");
            for (int i = 0; i < Calls; i++)
            {
                (List<byte[]?> payloads, int bad) = Hostile(i);
                var headers = new Metadata { { RawFlightService.TicketHeader, RawFlightService.Register(payloads) } };
                // Neither disposed nor completed: the server's writes alone would keep the stream open.
                FlightRecordBatchExchangeCall call = client.DoExchange(descriptor, headers);
                var e = await Assert.ThrowsAsync<InvalidDataException>(() => CountAsync(call.ResponseStream).WaitAsync(s_perRead));
                Assert.Contains($"FlightData message {bad} of the DoExchange stream", e.Message);
            }
            Assert.Equal(0, await open.SettledAsync(s_settle));

            var clean = new Metadata { { RawFlightService.TicketHeader, RawFlightService.Register(s_payloads) } };
            FlightRecordBatchExchangeCall exchange = client.DoExchange(descriptor, clean);
            Assert.Equal(s_messages.Count - 1, await CountAsync(exchange.ResponseStream).WaitAsync(s_perRead));
            Assert.Equal(0, await open.SettledAsync(s_settle));
        }

        [Fact]
        public async Task A_break_after_the_first_batch_leaves_the_call_to_its_owner_and_disposing_ends_it()
        {
            using var open = new OpenRequests(_raw.Host);
            using GrpcChannel channel = OneConnection(_raw.Host);
            var client = new FlightClient(channel.WithArrowLz4());
            string ticket = RawFlightService.Register(s_payloads);

            // Flight's reader never tells the stream below it that the loop has ended: the call stays open, with the
            // server blocked in a write, until its owner disposes it (docs/flight.md, "Ending a call").
            FlightRecordBatchStreamingCall left = client.GetStream(new FlightTicket(ticket));
            await FirstBatchAsync(left.ResponseStream).WaitAsync(s_perRead);
            Assert.Equal(1, open.Count);
            left.Dispose();
            Assert.Equal(0, await open.SettledAsync(s_settle));

            for (int i = 0; i < Calls; i++)
            {
                using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
                await FirstBatchAsync(call.ResponseStream).WaitAsync(s_perRead);
            }
            Assert.Equal(0, await open.SettledAsync(s_settle));
            await AssertCleanReadAsync(client, open);
        }

        [Fact]
        public async Task Cancelling_after_the_first_batch_ends_the_call_without_dispose()
        {
            using var open = new OpenRequests(_raw.Host);
            using GrpcChannel channel = OneConnection(_raw.Host);
            var client = new FlightClient(channel.WithArrowLz4());
            string ticket = RawFlightService.Register(s_payloads);
            for (int i = 0; i < Calls; i++)
            {
                using var cancel = new CancellationTokenSource();
                FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket), null, null, cancel.Token);
                var e = await Assert.ThrowsAsync<RpcException>(() => ReadCancellingAsync(call.ResponseStream, cancel).WaitAsync(s_perRead));
                Assert.Equal(StatusCode.Cancelled, e.StatusCode);
            }
            Assert.Equal(0, await open.SettledAsync(s_settle));
            await AssertCleanReadAsync(client, open);
        }

        [Fact]
        public async Task Failed_uploads_end_their_calls_on_the_server_without_the_client_disposing()
        {
            using var open = new OpenRequests(_store.Host);
            using GrpcChannel channel = OneConnection(_store.Host);
            for (int i = 0; i < Uploads; i++)
            {
                // Even variants only: a payload protobuf's parser refuses never reaches the server interceptor. The client
                // goes on writing a flow-control window's worth after the bad message (150 of about 430 bytes).
                (List<byte[]?> payloads, int bad) = Hostile(2 * i);
                IEnumerable<byte[]?> upload = payloads.Take(bad + 150);
                var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, upload, "hostile", dispose: false).WaitAsync(s_perRead));
                Assert.True(e.StatusCode == StatusCode.InvalidArgument && e.Status.Detail.Contains($"FlightData message {bad} of the DoPut stream", StringComparison.Ordinal), $"upload {i}: {e.Status}; the server logged: {_store.Host.Errors.Last()}");
            }
            Assert.Equal(0, await open.SettledAsync(s_settle));

            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(channel, s_payloads, key, dispose: false).WaitAsync(s_perRead);
            List<RecordBatch> expected = ArrowData.ReadAll(s_path, new Apache.Arrow.Compression.CompressionCodecFactory());
            ArrowData.AssertSame(expected, StoreFlightServer.Received[key]);
            ArrowData.DisposeAll(expected);
            Assert.Equal(0, await open.SettledAsync(s_settle));
        }

        /// <summary>
        /// The stream with one message from 1 to 500 broken, so that most of it is still to come: a data_header cut short
        /// (refused by the call's checks) or a protobuf with an unknown wire type (refused by the response marshaller).
        /// </summary>
        private static (List<byte[]?> Payloads, int Bad) Hostile(int i)
        {
            int bad = 1 + (i * 37 % 500);
            var payloads = new List<byte[]?>(s_payloads);
            payloads[bad] = i % 2 == 0
                ? IpcMessages.FlightData(s_messages[bad].Header.AsSpan(0, 40).ToArray(), s_messages[bad].Body)
                : new byte[] { 0x17, 0x00 };
            return (payloads, bad);
        }

        private static GrpcChannel OneConnection(TestHost host) =>
            host.Channel(new SocketsHttpHandler { EnableMultipleHttp2Connections = false });

        private static async Task AssertCleanReadAsync(FlightClient client, OpenRequests open)
        {
            FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(RawFlightService.Register(s_payloads)));
            var batches = new List<RecordBatch>();
            await ReadIntoAsync(call.ResponseStream, batches).WaitAsync(s_perRead);
            List<RecordBatch> expected = ArrowData.ReadAll(s_path, new Apache.Arrow.Compression.CompressionCodecFactory());
            ArrowData.AssertSame(expected, batches);
            ArrowData.DisposeAll(expected);
            ArrowData.DisposeAll(batches);
            Assert.Equal(0, await open.SettledAsync(s_settle));
        }

        private static async Task ReadIntoAsync(FlightClientRecordBatchStreamReader stream, List<RecordBatch> batches)
        {
            await foreach (RecordBatch batch in stream)
                batches.Add(batch);
        }

        private static async Task<int> CountAsync(FlightClientRecordBatchStreamReader stream)
        {
            int count = 0;
            await foreach (RecordBatch batch in stream)
            {
                batch.Dispose();
                count++;
            }
            return count;
        }

        private static async Task FirstBatchAsync(FlightClientRecordBatchStreamReader stream)
        {
            await foreach (RecordBatch batch in stream)
            {
                batch.Dispose();
                break;
            }
        }

        private static async Task ReadCancellingAsync(FlightClientRecordBatchStreamReader stream, CancellationTokenSource cancel)
        {
            await foreach (RecordBatch batch in stream)
            {
                batch.Dispose();
                cancel.Cancel();
            }
        }
    }
}
