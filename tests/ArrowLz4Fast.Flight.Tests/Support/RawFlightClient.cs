using System.Collections.Generic;
using System.Threading.Tasks;
using Grpc.Core;
using Grpc.Net.Client;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>Sends serialized FlightData as they are on Flight's DoPut path: what a pyarrow or C++ client uploads, or hostile bytes.</summary>
    internal static class RawFlightClient
    {
        private static readonly Method<byte[], byte[]> s_doPut =
            new Method<byte[], byte[]>(MethodType.DuplexStreaming, "arrow.flight.protocol.FlightService", "DoPut", RawFlightService.Bytes, RawFlightService.Bytes);

        public static async Task<List<byte[]>> DoPutAsync(GrpcChannel channel, IEnumerable<byte[]?> messages, string key)
        {
            var headers = new Metadata { { StoreFlightServer.KeyHeader, key } };
            using AsyncDuplexStreamingCall<byte[], byte[]> call = channel.CreateCallInvoker().AsyncDuplexStreamingCall(s_doPut, null, new CallOptions(headers));
            foreach (byte[]? message in messages)
                await call.RequestStream.WriteAsync(message!);
            await call.RequestStream.CompleteAsync();
            var results = new List<byte[]>();
            while (await call.ResponseStream.MoveNext(default))
                results.Add(call.ResponseStream.Current);
            return results;
        }
    }
}
