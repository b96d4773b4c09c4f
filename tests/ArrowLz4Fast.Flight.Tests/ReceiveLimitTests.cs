using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.Extensions.DependencyInjection;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// Receive limits bound decoded bytes, not wire bytes: a 4 MiB upload that decodes to 1 GiB is refused under a
    /// 16 MiB limit before the server allocates it, passes under a 2 GiB one, and clients refuse responses the same way.
    /// Allocation is measured process-wide around each call (GC.GetTotalAllocatedBytes): the client sends bytes prepared
    /// before the call, so the figure is the server's and gRPC's, and an upper bound of the server's. The collection runs
    /// alone so that no other test's allocation lands in it.
    /// </summary>
    [Collection(nameof(ReceiveLimitTests))]
    [CollectionDefinition(nameof(ReceiveLimitTests), DisableParallelization = true)]
    public sealed class ReceiveLimitTests
    {
        private const int MiB = 1 << 20;
        private readonly ITestOutputHelper _output;

        public ReceiveLimitTests(ITestOutputHelper output) => _output = output;

        /// <summary>A plain Flight server whose gRPC receive limit and interceptor options are given.</summary>
        internal static Task<TestHost> StartAsync(int? grpcLimit, Lz4FlightServerOptions options) =>
            TestHost.StartAsync(services => services.AddGrpc(o =>
            {
                o.MaxReceiveMessageSize = grpcLimit;
                o.MaxSendMessageSize = null;
                o.Interceptors.Add<Lz4FlightServerInterceptor>(options);
            }).AddFlightServer<StoreFlightServer>(), StoreFlightServer.Map);

        private static long Allocated() => GC.GetTotalAllocatedBytes(precise: true);

        [Fact]
        public async Task A_1GiB_upload_of_4MiB_under_a_16MiB_limit_is_refused_with_under_64MiB_allocated()
        {
            List<byte[]?> bomb = ZeroBomb.GiB;
            long wire = ZeroBomb.WireBytes(bomb);
            Assert.InRange(wire, 1 * MiB, 16 * MiB);
            await using TestHost host = await StartAsync(16 * MiB, new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 * MiB });
            using GrpcChannel channel = host.Channel();
            await RawFlightClient.DoPutAsync(channel, ZeroBomb.Payloads(1000), "warm-up");

            string key = Guid.NewGuid().ToString("N");
            long before = Allocated();
            var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, bomb, key));
            long allocated = Allocated() - before;
            _output.WriteLine($"wire {wire:N0} bytes; allocated during the refused call {allocated:N0} bytes; {e.Status.Detail}");
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains("16777216", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("Lz4FlightServerOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
            Assert.False(StoreFlightServer.Received.ContainsKey(key));
            Assert.True(allocated < 64 * MiB, $"{allocated:N0} bytes allocated during the call");
        }

        [Fact]
        public async Task The_same_upload_passes_under_a_2GiB_limit()
        {
            await using TestHost host = await StartAsync(null, new Lz4FlightServerOptions { MaxReceiveMessageSize = int.MaxValue });
            using GrpcChannel channel = host.Channel();
            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(channel, ZeroBomb.GiB, key);
            Assert.True(StoreFlightServer.Received.TryRemove(key, out List<RecordBatch>? received));
            RecordBatch batch = Assert.Single(received!);
            Assert.Equal(ZeroBomb.GiBRows, batch.Length);
            var column = (Int64Array)batch.Column(0);
            Assert.Equal(0, column.GetValue(0));
            Assert.Equal(0, column.GetValue((int)ZeroBomb.GiBRows - 1));
            batch.Dispose();
            received = null;
            GC.Collect();
        }

        [Fact]
        public async Task A_per_call_limit_bounds_what_one_DoPut_brings_in()
        {
            // Three 8 MiB batches: each passes the 16 MiB message limit; together they pass a 20 MiB call limit.
            List<byte[]?> one = ZeroBomb.Payloads(1 << 20, ordinary: true);
            var three = new List<byte[]?> { one[0], one[1], one[1], one[1] };
            await using (TestHost strict = await StartAsync(null, new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 * MiB, MaxReceiveCallSize = 20 * MiB }))
            {
                using GrpcChannel channel = strict.Channel();
                var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, three, Guid.NewGuid().ToString("N")));
                _output.WriteLine(e.Status.Detail);
                Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
                Assert.Contains("FlightData message 3 of the DoPut stream", e.Status.Detail, StringComparison.Ordinal);
                Assert.Contains("Lz4FlightServerOptions.MaxReceiveCallSize", e.Status.Detail, StringComparison.Ordinal);
                Assert.Contains("20971520", e.Status.Detail, StringComparison.Ordinal);
            }
            await using TestHost roomy = await StartAsync(null, new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 * MiB, MaxReceiveCallSize = 32 * MiB });
            using GrpcChannel roomyChannel = roomy.Channel();
            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(roomyChannel, three, key);
            Assert.True(StoreFlightServer.Received.TryRemove(key, out List<RecordBatch>? received));
            Assert.Equal(3, received!.Count);
            ArrowData.DisposeAll(received);
        }

        [Fact]
        public async Task A_DoGet_response_over_the_clients_limit_fails_the_read_with_ResourceExhausted()
        {
            // 8 MiB decoded, compressed on the wire by the server: the channel has no limit, the client's 4 MiB default refuses it.
            using RecordBatch batch = ZeroBomb.Batch(1 << 20, ordinary: true);
            string ticket = StoreFlightServer.Register(new[] { batch });
            await using TestHost host = await StartAsync(null, new Lz4FlightServerOptions());
            using GrpcChannel channel = host.Channel();
            var e = await Assert.ThrowsAsync<RpcException>(() => RoundTripTests.ReadAsync(new FlightClient(channel.WithArrowLz4()), ticket));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains("FlightData message 1 of the DoGet stream", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("4194304", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("Lz4FlightClientOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);

            List<RecordBatch> read = await RoundTripTests.ReadAsync(new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { MaxReceiveMessageSize = 16 * MiB })), ticket);
            Assert.Equal(batch.Length, Assert.Single(read).Length);
            ArrowData.DisposeAll(read);
            StoreFlightServer.Tables.TryRemove(ticket, out _);
        }

        [Fact]
        public async Task DoExchange_is_bounded_both_ways()
        {
            using RecordBatch batch = ZeroBomb.Batch(1 << 20, ordinary: true);
            var uploads = new Lz4FlightClientOptions { CompressUploads = true, MaxReceiveMessageSize = 16 * MiB };

            // Upload: the server's default 4 MiB limit refuses the 8 MiB batch.
            await using (TestHost strict = await StartAsync(null, new Lz4FlightServerOptions()))
            {
                using GrpcChannel channel = strict.Channel();
                var e = await Assert.ThrowsAsync<RpcException>(() => ExchangeAsync(new FlightClient(channel.WithArrowLz4(uploads)), batch));
                Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
                Assert.Contains("FlightData message 1 of the DoExchange stream", e.Status.Detail, StringComparison.Ordinal);
                Assert.Contains("Lz4FlightServerOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
            }

            // Response: the server takes it and sends it back compressed; a client with the default 4 MiB limit refuses it.
            await using TestHost roomy = await StartAsync(null, new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 * MiB });
            using GrpcChannel roomyChannel = roomy.Channel();
            var refused = await Assert.ThrowsAsync<RpcException>(() => ExchangeAsync(new FlightClient(roomyChannel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true })), batch));
            Assert.Equal(StatusCode.ResourceExhausted, refused.StatusCode);
            Assert.Contains("FlightData message 1 of the DoExchange stream", refused.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("Lz4FlightClientOptions.MaxReceiveMessageSize", refused.Status.Detail, StringComparison.Ordinal);

            List<RecordBatch> back = await ExchangeAsync(new FlightClient(roomyChannel.WithArrowLz4(uploads)), batch);
            Assert.Equal(batch.Length, Assert.Single(back).Length);
            ArrowData.DisposeAll(back);
        }

        [Fact]
        public async Task Decoding_an_ordinary_upload_allocates_its_decoded_body_and_a_small_constant()
        {
            // What gRPC, Kestrel and protobuf allocate for the wire bytes (client and server) is the same upload
            // refused at the limit, before decoding; what decoding adds is the difference.
            List<byte[]?> ordinary = ZeroBomb.Payloads(1 << 20, ordinary: true);
            long wire = ZeroBomb.WireBytes(ordinary), decoded = 8 * MiB;
            long accepted = await LeastAllocatedAsync(16 * MiB, ordinary, refused: false);
            long refused = await LeastAllocatedAsync(1 * MiB, ordinary, refused: true);
            long decoding = accepted - refused;
            _output.WriteLine($"wire {wire:N0} bytes, decoded {decoded:N0}; the call allocated {accepted:N0} accepted, {refused:N0} refused before decoding (the wire's part): decoding {decoding:N0} ({decoding - decoded:+#,0;-#,0;0} beside the body)");
            Assert.True(decoding < decoded + (256 << 10), $"decoding allocated {decoding:N0} bytes for a {decoded:N0}-byte body");
        }

        /// <summary>The least a raw upload of <paramref name="payloads"/> allocated in three calls, after a warm-up.</summary>
        private static async Task<long> LeastAllocatedAsync(int limit, List<byte[]?> payloads, bool refused)
        {
            await using TestHost host = await StartAsync(16 * MiB, new Lz4FlightServerOptions { MaxReceiveMessageSize = limit });
            using GrpcChannel channel = host.Channel();
            await RawFlightClient.DoPutAsync(channel, ZeroBomb.Payloads(1000, ordinary: true), "warm-up");
            StoreFlightServer.Received.TryRemove("warm-up", out _);
            long least = long.MaxValue;
            for (int round = 0; round < 4; round++)
            {
                string key = Guid.NewGuid().ToString("N");
                long before = Allocated();
                if (refused)
                    Assert.Equal(StatusCode.ResourceExhausted, (await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, payloads, key))).StatusCode);
                else
                    await RawFlightClient.DoPutAsync(channel, payloads, key);
                least = Math.Min(least, Allocated() - before);
                if (StoreFlightServer.Received.TryRemove(key, out List<RecordBatch>? received))
                    ArrowData.DisposeAll(received);
            }
            return least;
        }

        [Fact]
        public async Task Sixteen_bombs_beside_sixteen_ordinary_uploads_are_all_refused_and_the_others_all_arrive()
        {
            List<byte[]?> bomb = ZeroBomb.GiB;
            List<byte[]?> ordinary = ZeroBomb.Payloads(1 << 20, ordinary: true);
            long bombWire = ZeroBomb.WireBytes(bomb), ordinaryWire = ZeroBomb.WireBytes(ordinary), decoded = 8 * MiB;
            await using TestHost host = await StartAsync(16 * MiB, new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 * MiB });
            using GrpcChannel channel = host.Channel();
            await RawFlightClient.DoPutAsync(channel, ZeroBomb.Payloads(1000, ordinary: true), "warm-up");
            StoreFlightServer.Received.TryRemove("warm-up", out _);

            string[] keys = Enumerable.Range(0, 16).Select(_ => Guid.NewGuid().ToString("N")).ToArray();
            long before = Allocated();
            Task<List<byte[]>>[] bombs = Enumerable.Range(0, 16).Select(_ => Task.Run(() => RawFlightClient.DoPutAsync(channel, bomb, Guid.NewGuid().ToString("N")))).ToArray();
            Task<List<byte[]>>[] ordinaries = keys.Select(k => Task.Run(() => RawFlightClient.DoPutAsync(channel, ordinary, k))).ToArray();
            await Task.WhenAll(ordinaries);
            foreach (Task<List<byte[]>> call in bombs)
                Assert.Equal(StatusCode.ResourceExhausted, (await Assert.ThrowsAsync<RpcException>(() => call)).StatusCode);
            long allocated = Allocated() - before;

            // The bound (docs/flight.md): six times every call's wire bytes (alone a call takes about two: the client's
            // and protobuf's copies; more when gRPC gathers messages arriving in pieces), every accepted call's decoded
            // body, and 16 MiB.
            long bound = (6 * 16 * (bombWire + ordinaryWire)) + (16 * decoded) + (16 * MiB);
            _output.WriteLine($"allocated during the 32 calls {allocated:N0} bytes; bound {bound:N0}; without a limit the bombs alone would decode {16L << 30:N0}");
            foreach (string key in keys)
            {
                Assert.True(StoreFlightServer.Received.TryRemove(key, out List<RecordBatch>? received));
                Assert.Equal(1 << 20, Assert.Single(received!).Length);
                ArrowData.DisposeAll(received!);
            }
            Assert.True(allocated < bound, $"{allocated:N0} bytes allocated, bound {bound:N0}");
        }

        private static async Task<List<RecordBatch>> ExchangeAsync(FlightClient client, RecordBatch batch)
        {
            using FlightRecordBatchExchangeCall call = client.DoExchange(FlightDescriptor.CreatePathDescriptor("x"));
            var back = new List<RecordBatch>();
            try
            {
                await call.RequestStream.WriteAsync(batch);
                await call.RequestStream.CompleteAsync();
            }
            catch (RpcException)
            {
                // The server failed the call while we were still writing: its status comes with the response.
            }
            while (await call.ResponseStream.MoveNext(default))
                back.Add(call.ResponseStream.Current);
            return back;
        }
    }
}
