using System.Threading.Tasks;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>A client's upload stream that compresses each FlightData before gRPC serializes it.</summary>
    internal sealed class CompressingClientStreamWriter<T> : IClientStreamWriter<T>
        where T : class
    {
        private readonly IClientStreamWriter<T> _inner;
        private readonly FlightCodecSettings _settings;

        public CompressingClientStreamWriter(IClientStreamWriter<T> inner, FlightCodecSettings settings)
        {
            _inner = inner;
            _settings = settings;
        }

        public WriteOptions? WriteOptions
        {
            get => _inner.WriteOptions;
            set => _inner.WriteOptions = value;
        }

        public Task CompleteAsync() => _inner.CompleteAsync();

        public Task WriteAsync(T message) => _inner.WriteAsync(FlightDataCompressor.Compress(message, _settings));
    }

    /// <summary>A server's response stream that compresses each FlightData before gRPC serializes it.</summary>
    internal sealed class CompressingServerStreamWriter<T> : IServerStreamWriter<T>
        where T : class
    {
        private readonly IServerStreamWriter<T> _inner;
        private readonly FlightCodecSettings _settings;

        public CompressingServerStreamWriter(IServerStreamWriter<T> inner, FlightCodecSettings settings)
        {
            _inner = inner;
            _settings = settings;
        }

        public WriteOptions? WriteOptions
        {
            get => _inner.WriteOptions;
            set => _inner.WriteOptions = value;
        }

        public Task WriteAsync(T message) => _inner.WriteAsync(FlightDataCompressor.Compress(message, _settings));
    }
}
