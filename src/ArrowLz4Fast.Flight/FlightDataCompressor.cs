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
        /// <param name="message">The FlightData to send.</param>
        /// <param name="settings">The codec's settings.</param>
        /// <param name="rented">
        /// The pooled arrays the copy's data_header and data_body wrap (default when the message itself is returned): the
        /// caller gives them back once the copy is serialized and nothing reads it any more.
        /// </param>
        public static T Compress<T>(T message, FlightCodecSettings settings, out IpcCompressedMessage rented)
            where T : class
        {
            rented = default;
            var protobuf = (IMessage)message;
            FlightDataFields fields = FlightDataFields.Of(protobuf.Descriptor);
            ByteString header = fields.Header(protobuf);
            if (header.IsEmpty)
                return message;
            ByteString body = fields.Body(protobuf);
            if (!IpcMessageCompressor.TryCompress(header.Span, body.Span, settings.Codec, settings.MinSpaceSavings, rent: true, out IpcCompressedMessage compressed))
                return message;
            try
            {
                IMessage copy = protobuf is IDeepCloneable<T> cloneable ? (IMessage)cloneable.Clone() : fields.Parser.ParseFrom(protobuf.ToByteString());
                fields.Set(copy, compressed.Metadata, compressed.Body);
                rented = compressed;
                return (T)copy;
            }
            catch
            {
                compressed.Return();    // the copy failed: nothing wraps the arrays yet
                throw;
            }
        }
    }
}
