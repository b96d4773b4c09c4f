using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Text;
using System.Threading.Tasks;
using Grpc.AspNetCore.Server.Model;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// A server on Flight's DoGet and DoExchange paths that streams serialized FlightData exactly as registered: what a
    /// pyarrow, Arrow C++ or arrow-rs server puts on the wire (the messages of their IPC streams), or hostile bytes.
    /// </summary>
    internal sealed class RawFlightService
    {
        public static readonly Marshaller<byte[]> Bytes = Marshallers.Create(b => b, b => b);

        public static readonly Method<byte[], byte[]> DoGetMethod =
            new Method<byte[], byte[]>(MethodType.ServerStreaming, "arrow.flight.protocol.FlightService", "DoGet", Bytes, Bytes);

        public static readonly Method<byte[], byte[]> DoExchangeMethod =
            new Method<byte[], byte[]>(MethodType.DuplexStreaming, "arrow.flight.protocol.FlightService", "DoExchange", Bytes, Bytes);

        /// <summary>The request header naming what DoExchange sends back, whatever the client uploads.</summary>
        public const string TicketHeader = "test-ticket";

        /// <summary>Ticket to the messages to send; a null entry makes the server fail the call there.</summary>
        public static readonly ConcurrentDictionary<string, IReadOnlyList<byte[]?>> Streams = new ConcurrentDictionary<string, IReadOnlyList<byte[]?>>();

        public static string Register(IReadOnlyList<byte[]?> messages)
        {
            string ticket = Guid.NewGuid().ToString("N");
            Streams[ticket] = messages;
            return ticket;
        }

        [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822", Justification = "Bound as an instance method of the gRPC service.")]
        public async Task DoGet(byte[] request, IServerStreamWriter<byte[]> writer, ServerCallContext context)
        {
            // Ticket { bytes ticket = 1; }: one length-delimited field.
            int length = 0, shift = 0, position = 1;
            byte b;
            do
            {
                b = request[position++];
                length |= (b & 0x7F) << shift;
                shift += 7;
            }
            while (b >= 0x80);
            await SendAsync(Encoding.UTF8.GetString(request, position, length), writer);
        }

        [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822", Justification = "Bound as an instance method of the gRPC service.")]
        public Task DoExchange(IAsyncStreamReader<byte[]> requests, IServerStreamWriter<byte[]> writer, ServerCallContext context) =>
            SendAsync(context.RequestHeaders.GetValue(TicketHeader)!, writer);

        private static async Task SendAsync(string ticket, IServerStreamWriter<byte[]> writer)
        {
            foreach (byte[]? message in Streams[ticket])
            {
                if (message is null)
                    throw new RpcException(new Status(StatusCode.Internal, "the test server fails here"));
                await writer.WriteAsync(message);
            }
        }

        public static void Add(IServiceCollection services)
        {
            services.AddGrpc(o => { o.MaxReceiveMessageSize = null; o.MaxSendMessageSize = null; });
            services.AddSingleton<IServiceMethodProvider<RawFlightService>, Provider>();
            services.AddSingleton<RawFlightService>();
        }

        public static void Map(WebApplication app) => app.MapGrpcService<RawFlightService>();

        private sealed class Provider : IServiceMethodProvider<RawFlightService>
        {
            public void OnServiceMethodDiscovery(ServiceMethodProviderContext<RawFlightService> context)
            {
                context.AddServerStreamingMethod(DoGetMethod, new List<object>(), (service, request, writer, call) => service.DoGet(request, writer, call));
                context.AddDuplexStreamingMethod(DoExchangeMethod, new List<object>(), (service, requests, writer, call) => service.DoExchange(requests, writer, call));
            }
        }
    }
}
