using System;
using System.Threading.Tasks;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// A client's upload stream or a server's response stream that compresses each FlightData before gRPC serializes it.
    /// One class for both: they differ only in the client's CompleteAsync.
    /// </summary>
    internal sealed class CompressingStreamWriter<T> : IClientStreamWriter<T>, IServerStreamWriter<T>
        where T : class
    {
        private readonly IAsyncStreamWriter<T> _inner;
        private readonly FlightCodecSettings _settings;

        public CompressingStreamWriter(IAsyncStreamWriter<T> inner, FlightCodecSettings settings)
        {
            _inner = inner;
            _settings = settings;
        }

        public WriteOptions? WriteOptions
        {
            get => _inner.WriteOptions;
            set => _inner.WriteOptions = value;
        }

        public Task CompleteAsync() =>
            _inner is IClientStreamWriter<T> client ? client.CompleteAsync() : throw new InvalidOperationException("A server's response stream has no CompleteAsync.");

        public Task WriteAsync(T message) => _inner.WriteAsync(FlightDataCompressor.Compress(message, _settings));
    }
}
