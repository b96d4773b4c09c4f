using System;
using System.Buffers;
using System.IO;
using ArrowLz4Fast.Ipc;
using Google.Protobuf;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// The response marshaller's deserializer: a FlightData whose body is compressed is decoded straight from the gRPC
    /// payload into new memory, with no copy of the compressed body; any other message is parsed by protobuf as usual.
    /// </summary>
    internal sealed class FlightDataDeserializer
    {
        private readonly FlightDataFields _fields;
        private readonly FlightCodecSettings _settings;

        public FlightDataDeserializer(FlightDataFields fields, FlightCodecSettings settings)
        {
            _fields = fields;
            _settings = settings;
        }

        public IMessage Deserialize(DeserializationContext context)
        {
            ReadOnlySequence<byte> payload = context.PayloadAsReadOnlySequence();
            byte[]? rented = null;
            try
            {
                ReadOnlyMemory<byte> contiguous = payload.First;
                if (!payload.IsSingleSegment)
                {
                    // Grpc.Net.Client hands one segment; a multi-segment payload is gathered into pooled memory once.
                    rented = ArrayPool<byte>.Shared.Rent(checked((int)payload.Length));
                    payload.CopyTo(rented);
                    contiguous = new ReadOnlyMemory<byte>(rented, 0, (int)payload.Length);
                }
                return Decode(contiguous, _settings.ThreadDecoder(), payload);
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException || e is IpcLimitException)
            {
                return FlightFailures.Mark(_fields, e);
            }
            finally
            {
                if (rented is not null)
                    ArrayPool<byte>.Shared.Return(rented);
            }
        }

        /// <summary>Decodes one serialized FlightData; <paramref name="original"/> is the same bytes, for protobuf's parser.</summary>
        public IMessage Decode(ReadOnlyMemory<byte> payload, IpcMessageDecoder decoder, ReadOnlySequence<byte> original)
        {
            ReadOnlySpan<byte> span = payload.Span;
            FlightPayload.Scan(span, out (int Start, int Length) header, out (int Start, int Length) body, out int others);
            if (!decoder.TryDecode(span.Slice(header.Start, header.Length), payload.Slice(body.Start, body.Length), out ReadOnlyMemory<byte> metadata, out byte[] decoded))
                return Parse(original);
            IMessage message;
            if (others == 0)
            {
                message = _fields.Empty();
            }
            else
            {
                // The descriptor and app_metadata are small: protobuf parses them from a pooled copy.
                byte[] rest = ArrayPool<byte>.Shared.Rent(others);
                try
                {
                    FlightPayload.CopyOthers(span, rest);
                    message = Parse(new ReadOnlySequence<byte>(rest, 0, others));
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(rest);
                }
            }
            _fields.Set(message, metadata, decoded);
            return message;
        }

        private IMessage Parse(ReadOnlySequence<byte> bytes)
        {
            try
            {
                return _fields.Parser.ParseFrom(bytes);
            }
            catch (InvalidProtocolBufferException e)
            {
                throw new InvalidDataException($"Invalid FlightData protobuf: {e.Message}", e);
            }
        }
    }
}
