using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Apache.Arrow;
using ArrowLz4Fast.Flight.Tests.Support;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// <c>AddGrpc(…).AddArrowLz4()</c> bounds each decoded upload message by the server's own
    /// <c>GrpcServiceOptions.MaxReceiveMessageSize</c>: an upload of 20 MiB of zeros (about 80 KiB on the wire) is refused
    /// under gRPC's default 4 MiB and a 16 MiB limit, naming the limit and where it came from, and arrives under 32 MiB;
    /// with no gRPC limit the 1 GiB upload is refused at 64 MiB; an option set in <c>configure</c> wins over the server's.
    /// </summary>
    [Collection(nameof(ReceiveLimitTests))]
    public sealed class ServerLimitDefaultTests
    {
        private const int MiB = 1 << 20;
        private const long Rows20MiB = 20L * MiB / sizeof(long);
        private static readonly Lazy<List<byte[]?>> s_twentyMiB = new Lazy<List<byte[]?>>(() => ZeroBomb.Payloads(Rows20MiB));

        /// <summary>"unset" leaves gRPC's own default (4 MiB); a number sets it; "null" removes it.</summary>
        private static Task<TestHost> StartAsync(string grpcLimit, Action<Lz4FlightServerOptions>? configure = null, bool authenticate = false) =>
            TestHost.StartAsync(services => services.AddGrpc(o =>
            {
                if (grpcLimit == "null")
                    o.MaxReceiveMessageSize = null;
                else if (grpcLimit != "unset")
                    o.MaxReceiveMessageSize = int.Parse(grpcLimit, System.Globalization.CultureInfo.InvariantCulture);
                if (authenticate)
                    o.Interceptors.Add<RefuseAll>();
            }).AddArrowLz4(configure).AddFlightServer<StoreFlightServer>(), StoreFlightServer.Map);

        [Theory]
        [InlineData("unset", 4 * MiB)]
        [InlineData("16777216", 16 * MiB)]
        public async Task An_upload_over_the_servers_own_limit_after_decoding_is_refused_naming_it(string grpcLimit, int limit)
        {
            Assert.InRange(ZeroBomb.WireBytes(s_twentyMiB.Value), 1, limit / 4);
            await using TestHost host = await StartAsync(grpcLimit);
            using GrpcChannel channel = host.Channel();
            string key = Guid.NewGuid().ToString("N");
            var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, s_twentyMiB.Value, key));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains($"({limit} bytes)", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("the server's GrpcServiceOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
            Assert.False(StoreFlightServer.Received.ContainsKey(key));
        }

        [Fact]
        public async Task Raising_the_servers_limit_raises_the_decoded_bound()
        {
            await using TestHost host = await StartAsync((32 * MiB).ToString(System.Globalization.CultureInfo.InvariantCulture));
            using GrpcChannel channel = host.Channel();
            await AssertArrivesAsync(channel);
        }

        [Fact]
        public async Task With_no_server_limit_the_documented_default_bounds_the_decoded_bytes()
        {
            Assert.Equal(64 * MiB, ArrowLz4FlightServerBuilderExtensions.DefaultMaxReceiveMessageSize);
            await using TestHost host = await StartAsync("null");
            using GrpcChannel channel = host.Channel();
            await AssertArrivesAsync(channel);
            var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, ZeroBomb.GiB, Guid.NewGuid().ToString("N")));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains($"({64 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("DefaultMaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
        }

        [Fact]
        public async Task The_option_overrides_the_servers_limit_both_ways()
        {
            await using (TestHost host = await StartAsync("16777216", o => o.MaxReceiveMessageSize = 32 * MiB))
            {
                using GrpcChannel channel = host.Channel();
                await AssertArrivesAsync(channel);
            }
            await using (TestHost host = await StartAsync((64 * MiB).ToString(System.Globalization.CultureInfo.InvariantCulture), o => o.MaxReceiveMessageSize = 4 * MiB))
            {
                using GrpcChannel channel = host.Channel();
                var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, s_twentyMiB.Value, Guid.NewGuid().ToString("N")));
                Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
                Assert.Contains($"({4 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
                Assert.Contains("raise Lz4FlightServerOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
            }
        }

        [Fact]
        public async Task An_upload_refused_by_an_interceptor_registered_in_AddGrpc_is_never_decoded()
        {
            // The bomb under a 16 MiB limit would be refused with ResourceExhausted if it reached the decoder.
            await using TestHost host = await StartAsync("16777216", authenticate: true);
            using GrpcChannel channel = host.Channel();
            var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, ZeroBomb.GiB, Guid.NewGuid().ToString("N")));
            Assert.Equal(StatusCode.Unauthenticated, e.StatusCode);
        }

        private static async Task AssertArrivesAsync(GrpcChannel channel)
        {
            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(channel, s_twentyMiB.Value, key);
            Assert.True(StoreFlightServer.Received.TryRemove(key, out List<RecordBatch>? received));
            RecordBatch batch = Assert.Single(received!);
            Assert.Equal(Rows20MiB, batch.Length);
            Assert.Equal(0, ((Int64Array)batch.Column(0)).GetValue((int)Rows20MiB - 1));
            batch.Dispose();
        }

        /// <summary>An authentication interceptor that admits no one.</summary>
        private sealed class RefuseAll : Interceptor
        {
            public override Task DuplexStreamingServerHandler<TRequest, TResponse>(IAsyncStreamReader<TRequest> requestStream, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, DuplexStreamingServerMethod<TRequest, TResponse> continuation) =>
                throw new RpcException(new Status(StatusCode.Unauthenticated, "no token"));
        }
    }
}
