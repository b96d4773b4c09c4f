using System;
using ArrowLz4Fast.Ipc;
using Google.Protobuf;

namespace ArrowLz4Fast.Flight
{
    /// <summary>Compresses the body of an outgoing FlightData with LZ4_FRAME, every buffer in parallel (IpcMessageCompressor).</summary>
    internal static class FlightDataCompressor
    {
        /// <summary>
        /// A copy of <paramref name="message"/> with its batch compressed, or the message itself when there is nothing to
        /// compress (schema, already compressed, empty header). The caller's message is never changed: it may be reused.
        /// </summary>
        public static T Compress<T>(T message, FlightCodecSettings settings)
            where T : class
        {
            var protobuf = (IMessage)message;
            FlightDataFields fields = FlightDataFields.Of(protobuf.Descriptor);
            ByteString header = fields.Header(protobuf);
            if (header.IsEmpty)
                return message;
            ByteString body = fields.Body(protobuf);
            if (!IpcMessageCompressor.TryCompress(header.Span, body.Span, settings.Codec, settings.MinSpaceSavings, out ReadOnlyMemory<byte> metadata, out ReadOnlyMemory<byte> compressed))
                return message;
            IMessage copy = protobuf is IDeepCloneable<T> cloneable ? (IMessage)cloneable.Clone() : fields.Parser.ParseFrom(protobuf.ToByteString());
            fields.Set(copy, metadata, compressed);
            return (T)copy;
        }
    }
}
