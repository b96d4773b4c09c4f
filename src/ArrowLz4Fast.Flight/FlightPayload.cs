using System;
using System.IO;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// Finds data_header and data_body in a serialized FlightData without copying them: protobuf's parser would copy
    /// the body into a new array before it could be decoded.
    /// </summary>
    internal static class FlightPayload
    {
        private const int WireVarint = 0;
        private const int WireFixed64 = 1;
        private const int WireLengthDelimited = 2;
        private const int WireFixed32 = 5;

        /// <summary>
        /// Locates the last data_header and data_body (protobuf keeps the last of a repeated scalar field) and counts the
        /// bytes of every other field, which <see cref="CopyOthers"/> gathers for protobuf's own parser.
        /// </summary>
        public static void Scan(ReadOnlySpan<byte> payload, out (int Start, int Length) header, out (int Start, int Length) body, out int others)
        {
            header = default;
            body = default;
            others = 0;
            int position = 0;
            while (position < payload.Length)
            {
                int start = position;
                ulong tag = Varint(payload, ref position);
                ulong field = tag >> 3;
                int wire = (int)(tag & 7);
                (int Start, int Length) value = Skip(payload, ref position, wire, start);
                if (field == FlightDataFields.HeaderField && wire == WireLengthDelimited)
                    header = value;
                else if (field == FlightDataFields.BodyField && wire == WireLengthDelimited)
                    body = value;
                else if (field == FlightDataFields.HeaderField || field == FlightDataFields.BodyField || field == 0)
                    throw Malformed(start, $"field {field} has wire type {wire}");
                else
                    others += position - start;
            }
        }

        /// <summary>Copies every field but data_header and data_body to <paramref name="destination"/>, in order.</summary>
        public static void CopyOthers(ReadOnlySpan<byte> payload, Span<byte> destination)
        {
            int position = 0, written = 0;
            while (position < payload.Length)
            {
                int start = position;
                ulong tag = Varint(payload, ref position);
                ulong field = tag >> 3;
                Skip(payload, ref position, (int)(tag & 7), start);
                if (field != FlightDataFields.HeaderField && field != FlightDataFields.BodyField)
                {
                    payload.Slice(start, position - start).CopyTo(destination.Slice(written));
                    written += position - start;
                }
            }
        }

        private static (int Start, int Length) Skip(ReadOnlySpan<byte> payload, ref int position, int wire, int start)
        {
            switch (wire)
            {
                case WireVarint:
                    Varint(payload, ref position);
                    return default;
                case WireFixed64:
                    return Fixed(payload, ref position, 8, start);
                case WireFixed32:
                    return Fixed(payload, ref position, 4, start);
                case WireLengthDelimited:
                    ulong length = Varint(payload, ref position);
                    if (length > (ulong)(payload.Length - position))
                        throw Malformed(start, $"a field of {length} bytes runs past the {payload.Length}-byte message");
                    var value = (position, (int)length);
                    position += (int)length;
                    return value;
                default:
                    throw Malformed(start, $"wire type {wire} is not one FlightData uses");
            }
        }

        private static (int Start, int Length) Fixed(ReadOnlySpan<byte> payload, ref int position, int size, int start)
        {
            if (payload.Length - position < size)
                throw Malformed(start, "a fixed-size field runs past the message");
            position += size;
            return default;
        }

        private static ulong Varint(ReadOnlySpan<byte> payload, ref int position)
        {
            ulong value = 0;
            for (int shift = 0; shift < 64; shift += 7)
            {
                if (position >= payload.Length)
                    throw Malformed(position, "a varint runs past the message");
                byte b = payload[position++];
                value |= (ulong)(b & 0x7F) << shift;
                if (b < 0x80)
                    return value;
            }
            throw Malformed(position, "a varint is longer than 10 bytes");
        }

        private static InvalidDataException Malformed(int offset, string what) =>
            new InvalidDataException($"Invalid FlightData protobuf at byte offset {offset} of the gRPC message: {what}.");
    }
}
