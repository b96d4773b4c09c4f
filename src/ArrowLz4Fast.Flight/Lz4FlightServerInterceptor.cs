using System;
using System.IO;
using System.Threading.Tasks;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// Makes an Apache.Arrow.Flight.AspNetCore server read compressed DoPut and DoExchange uploads and compress its DoGet
    /// and DoExchange responses for clients that ask (<see cref="Lz4FlightHeaders.AcceptCodecs"/>), or for all:
    /// <c>services.AddGrpc(o => o.Interceptors.Add&lt;Lz4FlightServerInterceptor&gt;(options))</c>.
    /// </summary>
    /// <remarks>
    /// Uploads are decoded as Flight's reader reads them, every buffer of a message in parallel: a call refused before the
    /// handler reads (by an authentication interceptor or ASP.NET Core authorization) decodes nothing. A malformed upload
    /// fails its call with <see cref="StatusCode.InvalidArgument"/> and a message naming the FlightData message and the
    /// offset in it; one whose decoded body would pass <see cref="Lz4FlightServerOptions.MaxReceiveMessageSize"/> or
    /// <see cref="Lz4FlightServerOptions.MaxReceiveCallSize"/> fails it with <see cref="StatusCode.ResourceExhausted"/>
    /// before anything is allocated for that body; other calls go on. Thread-safe. A compressed response is built in
    /// pooled memory that is reused once gRPC's write of it completes: an interceptor registered after this one must not
    /// keep response messages past its WriteAsync.
    /// </remarks>
    public sealed class Lz4FlightServerInterceptor : Interceptor
    {
        private readonly FlightCodecSettings _settings;
        private readonly bool _compress;
        private readonly bool _always;

        /// <summary>An interceptor with the given options, or the defaults: decode uploads, compress responses for clients that advertise LZ4.</summary>
        /// <param name="options">
        /// Settings, read now; <see langword="null"/> for the defaults. One constructor: gRPC activates interceptors through
        /// dependency injection, which passes the argument of <c>Interceptors.Add&lt;T&gt;(options)</c>, an
        /// <see cref="Lz4FlightServerOptions"/> registered as a service, or nothing.
        /// </param>
        /// <exception cref="ArgumentOutOfRangeException">MaxReceiveMessageSize, MaxReceiveCallSize or MinSpaceSavings is out of range.</exception>
        public Lz4FlightServerInterceptor(Lz4FlightServerOptions? options = null)
        {
            options ??= new Lz4FlightServerOptions();
            _settings = new FlightCodecSettings(options.Codec, options.InnerCodecFactory, FlightCodecSettings.BodyLimit(options.MaxReceiveMessageSize), options.MinSpaceSavings,
                options.MaxReceiveCallSize, nameof(Lz4FlightServerOptions), options.MaxReceiveMessageSizeSource);
            _compress = options.CompressResponses || options.AlwaysCompressResponses;
            _always = options.AlwaysCompressResponses;
        }

        /// <summary>Compresses DoGet responses when configured; other calls pass through.</summary>
        /// <inheritdoc/>
        public override Task ServerStreamingServerHandler<TRequest, TResponse>(TRequest request, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, ServerStreamingServerMethod<TRequest, TResponse> continuation)
        {
            if (continuation is null) throw new ArgumentNullException(nameof(continuation));
            if (context is null || context.Method != FlightMethods.DoGet || !Compresses(context))
                return continuation(request, responseStream, context!);
            var responses = new CompressingStreamWriter<TResponse>(responseStream, _settings);
            return responses.RunAsync(() => continuation(request, responses, context));
        }

        /// <summary>Decodes DoPut and DoExchange uploads and compresses DoExchange responses when configured; other calls pass through.</summary>
        /// <inheritdoc/>
        public override async Task DuplexStreamingServerHandler<TRequest, TResponse>(IAsyncStreamReader<TRequest> requestStream, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, DuplexStreamingServerMethod<TRequest, TResponse> continuation)
        {
            if (continuation is null) throw new ArgumentNullException(nameof(continuation));
            string? name = context?.Method;
            bool exchange = name == FlightMethods.DoExchange;
            if (!exchange && name != FlightMethods.DoPut)
            {
                await continuation(requestStream, responseStream, context!).ConfigureAwait(false);
                return;
            }
            var requests = new CheckingStreamReader<TRequest>(requestStream, new FlightStreamChecker(exchange ? "DoExchange" : "DoPut", _settings.NewDecoder(), _settings), endCall: null);
            CompressingStreamWriter<TResponse>? compressing = exchange && Compresses(context!)
                ? new CompressingStreamWriter<TResponse>(responseStream, _settings)
                : null;
            try
            {
                if (compressing is null)
                    await continuation(requests, responseStream, context!).ConfigureAwait(false);
                else
                    await compressing.RunAsync(() => continuation(requests, compressing, context!)).ConfigureAwait(false);
            }
            catch (Exception e) when (e == requests.Failure || (e.InnerException is not null && e.InnerException == requests.Failure))
            {
                // Our refusal of the upload, through the handler: the client learns what was wrong, and the server goes on.
                if (requests.Failure is RpcException limit)
                    throw new RpcException(limit.Status);
                throw new RpcException(new Status(e is NotSupportedException ? StatusCode.Unimplemented : StatusCode.InvalidArgument, requests.Failure!.Message));
            }
        }

        private bool Compresses(ServerCallContext context)
        {
            if (!_compress)
                return false;
            return _always || Lz4FlightHeaders.Lists(context.RequestHeaders.GetValue(Lz4FlightHeaders.AcceptCodecs), Lz4FlightHeaders.Lz4);
        }
    }
}
