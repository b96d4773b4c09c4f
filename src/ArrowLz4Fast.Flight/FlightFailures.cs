using System;
using System.Runtime.CompilerServices;
using Google.Protobuf;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// A response marshaller cannot throw our exception to the reader: gRPC would turn it into a generic RpcException
    /// and abort the call. It returns an empty message marked here instead, and the call's stream reader throws the
    /// exception when that message comes up, as the failed read of that stream.
    /// </summary>
    internal static class FlightFailures
    {
        private static readonly ConditionalWeakTable<object, Exception> s_failed = new ConditionalWeakTable<object, Exception>();

        public static IMessage Mark(FlightDataFields fields, Exception exception)
        {
            IMessage message = fields.Empty();
            s_failed.Add(message, exception);
            return message;
        }

        public static Exception? Of(object message) => s_failed.TryGetValue(message, out Exception? e) ? e : null;
    }
}
