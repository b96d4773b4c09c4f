using System;
using System.Threading.Tasks;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Flight.Server;
using ArrowLz4Fast.Flight.Tests.Support;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>The test server keeps what a handler threw, which the client sees only as "Exception was thrown by handler.".</summary>
    public sealed class TestHostTests
    {
        private sealed class ThrowingServer : FlightServer
        {
            public override Task DoAction(FlightAction request, IAsyncStreamWriter<FlightResult> responseStream, ServerCallContext context) =>
                throw new InvalidOperationException("the handler's own failure");
        }

        [Fact]
        public async Task A_handler_exception_is_kept_for_the_test_to_report()
        {
            await using TestHost host = await TestHost.StartAsync(s => s.AddGrpc().AddFlightServer<ThrowingServer>(), app => app.MapFlightEndpoint());
            using var channel = host.Channel();
            var client = new FlightClient(channel);
            Assert.Equal("none", host.Errors.Last());

            var e = await Assert.ThrowsAsync<RpcException>(() => client.DoAction(new FlightAction("any")).ResponseStream.MoveNext());
            Assert.Equal(StatusCode.Unknown, e.StatusCode);
            Assert.Contains("InvalidOperationException: the handler's own failure", host.Errors.Last(), StringComparison.Ordinal);
        }
    }
}
