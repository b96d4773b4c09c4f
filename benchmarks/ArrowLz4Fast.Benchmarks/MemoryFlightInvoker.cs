using System;
using System.Buffers;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Grpc.Core;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// A CallInvoker whose DoGet answers with serialized FlightData held in memory, handed to the call's response
    /// marshaller one payload at a time as Grpc.Net.Client hands them (one contiguous segment). Under
    /// channel-free interception it runs the client interceptor's whole response path and Flight's own reader, with no
    /// gRPC transport and no server: the decode-only counterpart of OfficialFromMemory.
    /// </summary>
    internal sealed class MemoryFlightInvoker : CallInvoker
    {
        private readonly IReadOnlyList<byte[]> _payloads;

        public MemoryFlightInvoker(IReadOnlyList<byte[]> payloads) => _payloads = payloads;

        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request)
        {
            var reader = new PayloadReader<TResponse>(_payloads, method.ResponseMarshaller.ContextualDeserializer);
            return new AsyncServerStreamingCall<TResponse>(reader, Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => new Metadata(), () => { });
        }

        public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw Unsupported(method);

        public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw Unsupported(method);

        public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) => throw Unsupported(method);

        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) => throw Unsupported(method);

        private static NotSupportedException Unsupported(IMethod method) => new($"{method.FullName}: only DoGet is served from memory.");

        private sealed class PayloadReader<T> : IAsyncStreamReader<T>
        {
            private readonly IReadOnlyList<byte[]> _payloads;
            private readonly Func<DeserializationContext, T> _deserialize;
            private int _next;

            public PayloadReader(IReadOnlyList<byte[]> payloads, Func<DeserializationContext, T> deserialize)
            {
                _payloads = payloads;
                _deserialize = deserialize;
            }

            public T Current { get; private set; } = default!;

            public Task<bool> MoveNext(CancellationToken cancellationToken)
            {
                if (_next == _payloads.Count)
                    return Task.FromResult(false);
                Current = _deserialize(new Payload(_payloads[_next++]));
                return Task.FromResult(true);
            }
        }

        private sealed class Payload : DeserializationContext
        {
            private readonly byte[] _bytes;

            public Payload(byte[] bytes) => _bytes = bytes;

            public override int PayloadLength => _bytes.Length;

            public override byte[] PayloadAsNewBuffer() => (byte[])_bytes.Clone();

            public override ReadOnlySequence<byte> PayloadAsReadOnlySequence() => new(_bytes);
        }
    }
}
