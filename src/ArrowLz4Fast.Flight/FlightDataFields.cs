using System;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// Reads and sets the fields of Flight's protobuf <c>FlightData</c>, whose type Apache.Arrow.Flight keeps internal,
    /// through its descriptor: data_header (2), app_metadata (3) and data_body (1000).
    /// </summary>
    internal sealed class FlightDataFields
    {
        public const int HeaderField = 2;
        public const int BodyField = 1000;

        private static FlightDataFields? s_last;

        private readonly IFieldAccessor _header;
        private readonly IFieldAccessor _body;

        private FlightDataFields(MessageDescriptor descriptor)
        {
            Descriptor = descriptor;
            Parser = descriptor.Parser;
            _header = Bytes(descriptor, HeaderField, "data_header");
            _body = Bytes(descriptor, BodyField, "data_body");
        }

        public MessageDescriptor Descriptor { get; }

        public MessageParser Parser { get; }

        /// <summary>The fields of the message type a method's marshaller makes (the marshaller of FlightData).</summary>
        public static FlightDataFields Of<T>(Marshaller<T> marshaller)
        {
            // An empty payload is an empty message: its descriptor names the type without reflection over the CLR type.
            if (marshaller.ContextualDeserializer(EmptyPayload.Instance) is not IMessage empty)
                throw new InvalidOperationException($"The method's message type {typeof(T)} is not a protobuf message.");
            return Of(empty.Descriptor);
        }

        public static FlightDataFields Of(MessageDescriptor descriptor)
        {
            FlightDataFields? last = s_last;
            if (last is not null && ReferenceEquals(last.Descriptor, descriptor))
                return last;
            return s_last = new FlightDataFields(descriptor);
        }

        public ByteString Header(IMessage message) => (ByteString)_header.GetValue(message);

        public ByteString Body(IMessage message) => (ByteString)_body.GetValue(message);

        /// <summary>A new message with no field set.</summary>
        public IMessage Empty() => Parser.ParseFrom(ByteString.Empty);

        /// <summary>Sets data_header and data_body to memory not written again while the message is in use (wrapped, not copied).</summary>
        public void Set(IMessage message, ReadOnlyMemory<byte> header, ReadOnlyMemory<byte> body)
        {
            _header.SetValue(message, UnsafeByteOperations.UnsafeWrap(header));
            _body.SetValue(message, UnsafeByteOperations.UnsafeWrap(body));
        }

        /// <summary>An empty gRPC payload, for the generated marshaller to make an empty message from.</summary>
        private sealed class EmptyPayload : DeserializationContext
        {
            public static readonly EmptyPayload Instance = new EmptyPayload();

            public override int PayloadLength => 0;

            public override byte[] PayloadAsNewBuffer() => Array.Empty<byte>();

            public override System.Buffers.ReadOnlySequence<byte> PayloadAsReadOnlySequence() => default;
        }

        private static IFieldAccessor Bytes(MessageDescriptor descriptor, int number, string name)
        {
            FieldDescriptor? field = descriptor.FindFieldByNumber(number);
            if (field is null || field.FieldType != FieldType.Bytes || field.IsRepeated)
                throw new InvalidOperationException($"{descriptor.FullName} has no bytes field {name} = {number}: it is not Arrow Flight's FlightData.");
            return field.Accessor;
        }
    }
}
