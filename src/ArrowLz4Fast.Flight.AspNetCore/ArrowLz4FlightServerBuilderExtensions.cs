using System;
using ArrowLz4Fast.Flight;
using Grpc.AspNetCore.Server;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection
{
    /// <summary>Registers <see cref="Lz4FlightServerInterceptor"/> on an ASP.NET Core gRPC server.</summary>
    public static class ArrowLz4FlightServerBuilderExtensions
    {
        /// <summary>
        /// The longest decoded upload message when the server's <see cref="GrpcServiceOptions.MaxReceiveMessageSize"/> is
        /// <see langword="null"/> (no limit on the wire): 64 MiB. A limit on the decoded bytes is kept even then, since a few
        /// megabytes of LZ4 can declare a gigabyte. The client's default is the same constant.
        /// </summary>
        public const int DefaultMaxReceiveMessageSize = ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize;

        /// <summary>
        /// Adds <see cref="Lz4FlightServerInterceptor"/> to the server's interceptors, after those registered before this
        /// call (put authentication first): uploads are decoded, and responses compressed for clients that ask.
        /// </summary>
        /// <remarks>
        /// Unless <paramref name="configure"/> sets <see cref="Lz4FlightServerOptions.MaxReceiveMessageSize"/>, an upload
        /// message may decode to at most the server's own <see cref="GrpcServiceOptions.MaxReceiveMessageSize"/> (gRPC's
        /// default is 4 MiB), or <see cref="DefaultMaxReceiveMessageSize"/> when that is <see langword="null"/>: the limit
        /// the operator set for the bytes on the wire bounds the bytes after decoding too. The global options are the ones
        /// Grpc.AspNetCore applies to Flight's service, whose type Apache.Arrow.Flight keeps internal (no per-service
        /// options can name it). The options are read once, when the first call needs the interceptor.
        /// </remarks>
        /// <param name="builder">The builder <c>AddGrpc</c> returned.</param>
        /// <param name="configure">Sets the interceptor's options; <see langword="null"/> for the defaults.</param>
        /// <returns><paramref name="builder"/>, for chaining (<c>.AddFlightServer&lt;T&gt;()</c>).</returns>
        public static IGrpcServerBuilder AddArrowLz4(this IGrpcServerBuilder builder, Action<Lz4FlightServerOptions>? configure = null)
        {
            if (builder is null) throw new ArgumentNullException(nameof(builder));
            // One interceptor for the server, resolved from DI by Grpc.AspNetCore on each call (it is thread-safe).
            builder.Services.TryAddSingleton(services => new Lz4FlightServerInterceptor(
                Resolve(services.GetRequiredService<IOptions<GrpcServiceOptions>>().Value, configure)));
            builder.Services.Configure<GrpcServiceOptions>(options => options.Interceptors.Add<Lz4FlightServerInterceptor>());
            return builder;
        }

        /// <summary>The user's options with the message limit defaulted from the server's.</summary>
        private static Lz4FlightServerOptions Resolve(GrpcServiceOptions server, Action<Lz4FlightServerOptions>? configure)
        {
            var options = new Lz4FlightServerOptions();
            configure?.Invoke(options);
            if (!options.MaxReceiveMessageSizeIsSet)
            {
                (int limit, string source) = FlightCodecSettings.FromTransport(server.MaxReceiveMessageSize,
                    "the server's GrpcServiceOptions.MaxReceiveMessageSize", $"{nameof(ArrowLz4FlightServerBuilderExtensions)}.{nameof(DefaultMaxReceiveMessageSize)}");
                options.MaxReceiveMessageSize = limit;
                options.MaxReceiveMessageSizeSource = source;
            }
            return options;
        }
    }
}
