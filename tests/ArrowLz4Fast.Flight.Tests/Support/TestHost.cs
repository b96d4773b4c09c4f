using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Threading.Tasks;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>An in-process Kestrel gRPC server on 127.0.0.1 with a free port, HTTP/2 without TLS.</summary>
    internal sealed class TestHost : IAsyncDisposable
    {
        private readonly WebApplication _app;

        private TestHost(WebApplication app, string address, HandlerErrors errors)
        {
            _app = app;
            Address = address;
            Errors = errors;
        }

        public string Address { get; }

        /// <summary>What the server logged as errors (a handler's exception among them).</summary>
        public HandlerErrors Errors { get; }

        public IServiceProvider Services => _app.Services;

        public static async Task<TestHost> StartAsync(Action<IServiceCollection> configure, Action<WebApplication> map)
        {
            WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
            builder.WebHost.ConfigureKestrel(o => o.Listen(IPAddress.Loopback, 0, l => l.Protocols = HttpProtocols.Http2));
            builder.Logging.ClearProviders();
            var errors = new HandlerErrors();
            builder.Logging.AddProvider(errors);
            configure(builder.Services);
            WebApplication app = builder.Build();
            map(app);
            await app.StartAsync();
            string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
            return new TestHost(app, address, errors);
        }

        /// <summary>A channel with no message size limit (Flight messages are larger than gRPC's 4 MB default).</summary>
        public GrpcChannel Channel(HttpMessageHandler? handler = null) =>
            GrpcChannel.ForAddress(Address, new GrpcChannelOptions { MaxReceiveMessageSize = null, MaxSendMessageSize = null, HttpHandler = handler });

        public async ValueTask DisposeAsync()
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }
}
