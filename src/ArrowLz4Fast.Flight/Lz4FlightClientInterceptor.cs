using System;
using System.Collections.Concurrent;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// Makes the official Flight client read LZ4-compressed (and, with an inner factory, ZSTD-compressed) DoGet and
    /// DoExchange responses, and optionally compress its DoPut and DoExchange uploads:
    /// <c>new FlightClient(channel.Intercept(new Lz4FlightClientInterceptor()))</c> or <c>channel.WithArrowLz4()</c>.
    /// </summary>
    /// <remarks>
    /// Responses are decoded by a response marshaller straight from the gRPC payload, every buffer of a message in
    /// parallel, into new memory the GC owns (Flight's reader wraps the body without owning it). Schema messages,
    /// uncompressed messages, app_metadata and descriptors pass through unchanged. A malformed message fails the read
    /// of its stream with an <see cref="System.IO.InvalidDataException"/> naming the message and the offset in it; one
    /// whose decoded body would pass <see cref="Lz4FlightClientOptions.MaxReceiveMessageSize"/>, with an
    /// <see cref="RpcException"/> (<see cref="StatusCode.ResourceExhausted"/>), before anything is allocated for it.
    /// Either refusal also cancels the call, so that the server stops sending and the call's HTTP/2 stream is released
    /// even if the call is never disposed. A call left otherwise (a <c>break</c> out of the read, an exception in the
    /// loop) stays open until it is disposed or its cancellation token fires, as without the interceptor. Flight data
    /// calls carry the <see cref="Lz4FlightHeaders.AcceptCodecs"/> header. Thread-safe; keep one per channel. A compressed
    /// upload is built in pooled memory that is reused once gRPC's write of it completes: an interceptor between this
    /// one and the channel must not keep request messages past its WriteAsync.
    /// </remarks>
    public sealed class Lz4FlightClientInterceptor : Interceptor
    {
        private readonly FlightCodecSettings _settings;
        private readonly bool _compressUploads;
        private readonly bool _advertise;
        // Substitute methods, made once per Flight method: the channel caches per method object.
        private readonly ConcurrentDictionary<IMethod, object> _methods = new ConcurrentDictionary<IMethod, object>();

        /// <summary>An interceptor with default options: decodes LZ4 responses, compresses nothing.</summary>
        public Lz4FlightClientInterceptor()
            : this(null)
        {
        }

        /// <summary>An interceptor with the given options.</summary>
        /// <param name="options">Settings, read now; <see langword="null"/> for the defaults.</param>
        /// <exception cref="ArgumentOutOfRangeException">MaxReceiveMessageSize or MinSpaceSavings is out of range.</exception>
        public Lz4FlightClientInterceptor(Lz4FlightClientOptions? options)
            : this(options ??= new Lz4FlightClientOptions(), options.MaxReceiveMessageSize, messageLimitSource: null)
        {
        }

        /// <summary>An interceptor with the given options and a message limit taken from elsewhere (the channel's options).</summary>
        /// <param name="options">Settings, read now; their own message limit is not used.</param>
        /// <param name="maxReceiveMessageSize">The message limit, as gRPC gives one.</param>
        /// <param name="messageLimitSource">Where the limit came from, named in refusals; <see langword="null"/> for the options' own.</param>
        internal Lz4FlightClientInterceptor(Lz4FlightClientOptions options, int? maxReceiveMessageSize, string? messageLimitSource)
        {
            _settings = new FlightCodecSettings(options.Codec, options.InnerCodecFactory, FlightCodecSettings.BodyLimit(maxReceiveMessageSize), options.MinSpaceSavings,
                limitOptions: nameof(Lz4FlightClientOptions), messageLimitSource: messageLimitSource);
            _compressUploads = options.CompressUploads;
            _advertise = options.Advertise;
        }

        /// <summary>Decodes DoGet responses; other server-streaming calls pass through.</summary>
        /// <inheritdoc/>
        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(TRequest request, ClientInterceptorContext<TRequest, TResponse> context, AsyncServerStreamingCallContinuation<TRequest, TResponse> continuation)
        {
            if (continuation is null) throw new ArgumentNullException(nameof(continuation));
            if (context.Method.FullName != FlightMethods.DoGet)
                return continuation(request, context);
            Method<TRequest, TResponse> method = Decoding(context.Method);
            AsyncServerStreamingCall<TResponse> call = continuation(request, new ClientInterceptorContext<TRequest, TResponse>(method, context.Host, Advertised(context.Options)));
            var reader = new CheckingStreamReader<TResponse>(call.ResponseStream, new FlightStreamChecker("DoGet", decoder: null, _settings), call.Dispose);
            return new AsyncServerStreamingCall<TResponse>(reader, call.ResponseHeadersAsync, call.GetStatus, call.GetTrailers, call.Dispose);
        }

        /// <summary>Decodes DoExchange responses and, when configured, compresses DoPut and DoExchange uploads; other calls pass through.</summary>
        /// <inheritdoc/>
        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(ClientInterceptorContext<TRequest, TResponse> context, AsyncDuplexStreamingCallContinuation<TRequest, TResponse> continuation)
        {
            if (continuation is null) throw new ArgumentNullException(nameof(continuation));
            string name = context.Method.FullName;
            bool exchange = name == FlightMethods.DoExchange;
            if (!exchange && name != FlightMethods.DoPut)
                return continuation(context);
            Method<TRequest, TResponse> method = exchange ? Decoding(context.Method) : context.Method;
            AsyncDuplexStreamingCall<TRequest, TResponse> call = continuation(new ClientInterceptorContext<TRequest, TResponse>(method, context.Host, Advertised(context.Options)));
            IClientStreamWriter<TRequest> requests = _compressUploads
                ? new CompressingStreamWriter<TRequest>(call.RequestStream, _settings)
                : call.RequestStream;
            IAsyncStreamReader<TResponse> responses = exchange
                ? new CheckingStreamReader<TResponse>(call.ResponseStream, new FlightStreamChecker("DoExchange", decoder: null, _settings), call.Dispose)
                : call.ResponseStream;
            return new AsyncDuplexStreamingCall<TRequest, TResponse>(requests, responses, call.ResponseHeadersAsync, call.GetStatus, call.GetTrailers, call.Dispose);
        }

        private Method<TRequest, TResponse> Decoding<TRequest, TResponse>(Method<TRequest, TResponse> method)
            where TRequest : class
            where TResponse : class
        {
            if (_methods.TryGetValue(method, out object? cached))
                return (Method<TRequest, TResponse>)cached;
            Marshaller<TResponse> original = method.ResponseMarshaller;
            var deserializer = new FlightDataDeserializer(FlightDataFields.Of(original), _settings);
            var marshaller = new Marshaller<TResponse>(original.ContextualSerializer, context => (TResponse)deserializer.Deserialize(context));
            var substitute = new Method<TRequest, TResponse>(method.Type, method.ServiceName, method.Name, method.RequestMarshaller, marshaller);
            return (Method<TRequest, TResponse>)_methods.GetOrAdd(method, substitute);
        }

        private CallOptions Advertised(CallOptions options)
        {
            if (!_advertise)
                return options;
            // A new collection: the caller's may be reused for other calls.
            var headers = new Metadata();
            if (options.Headers is not null)
            {
                foreach (Metadata.Entry entry in options.Headers)
                {
                    if (!string.Equals(entry.Key, Lz4FlightHeaders.AcceptCodecs, StringComparison.OrdinalIgnoreCase))
                        headers.Add(entry);
                }
            }
            headers.Add(Lz4FlightHeaders.AcceptCodecs, _settings.AcceptedCodecs);
            return options.WithHeaders(headers);
        }
    }
}
