using System.Collections.Generic;
using System.Security.Claims;
using System.Text.Encodings.Web;
using System.Threading.Tasks;
using ArrowLz4Fast.Flight.Tests.Support;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// An upload refused by authentication is never decoded, whichever order the interceptors are registered in: the
    /// upload is a 1 GiB body declared in 4 MiB under a 16 MiB limit, so a decode would answer ResourceExhausted, and
    /// the refusal answers Unauthenticated. With the token, the same upload reaches the interceptor and is refused by it,
    /// so the interceptor is in each pipeline.
    /// </summary>
    [Collection(nameof(ReceiveLimitTests))]
    public sealed class AuthenticationOrderTests
    {
        private const string Token = "Bearer flight-test";

        public static IEnumerable<object[]> Gates() => new[]
        {
            new object[] { "authentication interceptor registered first" },
            new object[] { "authentication interceptor registered after the LZ4 interceptor" },
            new object[] { "ASP.NET Core authorization registered before AddGrpc" },
            new object[] { "ASP.NET Core authorization registered after AddGrpc" },
        };

        [Theory]
        [MemberData(nameof(Gates))]
        public async Task An_upload_refused_by_authentication_is_never_decoded(string gate)
        {
            await using TestHost host = await StartAsync(gate);
            using GrpcChannel channel = host.Channel();

            var refused = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, ZeroBomb.GiB, "anonymous"));
            Assert.Equal(StatusCode.Unauthenticated, refused.StatusCode);

            var withToken = new Metadata { { "authorization", Token } };
            var decoded = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, ZeroBomb.GiB, "authenticated", withToken));
            Assert.Equal(StatusCode.ResourceExhausted, decoded.StatusCode);
        }

        private static Task<TestHost> StartAsync(string gate)
        {
            bool aspNet = gate.StartsWith("ASP.NET", System.StringComparison.Ordinal);
            var options = new Lz4FlightServerOptions { MaxReceiveMessageSize = 16 << 20 };
            return TestHost.StartAsync(
                services =>
                {
                    if (aspNet && gate.Contains("before", System.StringComparison.Ordinal))
                        AddAuthorization(services);
                    services.AddGrpc(o =>
                    {
                        o.MaxReceiveMessageSize = null;
                        if (gate == "authentication interceptor registered first")
                            o.Interceptors.Add<TokenInterceptor>();
                        o.Interceptors.Add<Lz4FlightServerInterceptor>(options);
                        if (gate == "authentication interceptor registered after the LZ4 interceptor")
                            o.Interceptors.Add<TokenInterceptor>();
                    }).AddFlightServer<StoreFlightServer>();
                    if (aspNet && gate.Contains("after", System.StringComparison.Ordinal))
                        AddAuthorization(services);
                },
                app =>
                {
                    if (!aspNet)
                    {
                        app.MapFlightEndpoint();
                        return;
                    }
                    app.UseAuthentication();
                    app.UseAuthorization();
                    app.MapFlightEndpoint().RequireAuthorization();
                });
        }

        private static void AddAuthorization(IServiceCollection services)
        {
            services.AddAuthentication(TokenHandler.SchemeName).AddScheme<AuthenticationSchemeOptions, TokenHandler>(TokenHandler.SchemeName, null);
            services.AddAuthorization();
        }

        /// <summary>An authentication interceptor as a Flight server writes one: no token, no call.</summary>
        private sealed class TokenInterceptor : Interceptor
        {
            public override Task DuplexStreamingServerHandler<TRequest, TResponse>(IAsyncStreamReader<TRequest> requestStream, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, DuplexStreamingServerMethod<TRequest, TResponse> continuation)
            {
                if (context.RequestHeaders.GetValue("authorization") != Token)
                    throw new RpcException(new Status(StatusCode.Unauthenticated, "no token"));
                return continuation(requestStream, responseStream, context);
            }
        }

        /// <summary>ASP.NET Core authentication by the same token.</summary>
        private sealed class TokenHandler : AuthenticationHandler<AuthenticationSchemeOptions>
        {
            public const string SchemeName = "FlightTestToken";

            public TokenHandler(IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder)
                : base(options, logger, encoder)
            {
            }

            protected override Task<AuthenticateResult> HandleAuthenticateAsync()
            {
                if (Request.Headers.Authorization != Token)
                    return Task.FromResult(AuthenticateResult.NoResult());
                var identity = new ClaimsIdentity(new[] { new Claim(ClaimTypes.Name, "flight") }, SchemeName);
                return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), SchemeName)));
            }
        }
    }
}
