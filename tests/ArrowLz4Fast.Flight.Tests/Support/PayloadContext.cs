using System.Buffers;
using Grpc.Core;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>A gRPC payload handed to a marshaller as Grpc.Net.Client hands it: one contiguous segment.</summary>
    internal sealed class PayloadContext : DeserializationContext
    {
        private readonly byte[] _payload;

        public PayloadContext(byte[] payload) => _payload = payload;

        public override int PayloadLength => _payload.Length;

        public override byte[] PayloadAsNewBuffer() => (byte[])_payload.Clone();

        public override ReadOnlySequence<byte> PayloadAsReadOnlySequence() => new ReadOnlySequence<byte>(_payload);
    }
}
