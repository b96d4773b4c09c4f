using System;
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

        private static readonly Method<byte[], byte[]> s_doGet =
            new Method<byte[], byte[]>(MethodType.ServerStreaming, "arrow.flight.protocol.FlightService", "DoGet", RawFlightService.Bytes, RawFlightService.Bytes);

        // Far longer than any upload of the tests takes (the largest, a 1 GiB bomb, is refused within seconds).
        private static readonly System.TimeSpan ResponseBound = System.TimeSpan.FromMinutes(2);

        /// <summary>The serialized FlightData a server sends for a ticket, as they are on the wire (gRPC payloads).</summary>
        public static async Task<List<byte[]>> DoGetAsync(GrpcChannel channel, string ticket, Metadata? headers)
        {
            byte[] name = System.Text.Encoding.UTF8.GetBytes(ticket);
            byte[] request = new byte[2 + name.Length];
            request[0] = 0x0A; // Ticket.ticket = 1, length-delimited
            request[1] = checked((byte)name.Length);
            name.CopyTo(request, 2);
            using AsyncServerStreamingCall<byte[]> call = channel.CreateCallInvoker().AsyncServerStreamingCall(s_doGet, null, new CallOptions(headers), request);
            var payloads = new List<byte[]>();
            while (await call.ResponseStream.MoveNext(default))
                payloads.Add(call.ResponseStream.Current);
            return payloads;
        }

        /// <param name="extra">Headers sent besides the store key.</param>
        /// <param name="dispose">False to leave the call as much user code does: ended by the server, or never.</param>
        public static async Task<List<byte[]>> DoPutAsync(GrpcChannel channel, IEnumerable<byte[]?> messages, string key, Metadata? extra = null, bool dispose = true)
        {
            var headers = new Metadata { { StoreFlightServer.KeyHeader, key } };
            foreach (Metadata.Entry entry in extra ?? new Metadata())
                headers.Add(entry);
            AsyncDuplexStreamingCall<byte[], byte[]> call = channel.CreateCallInvoker().AsyncDuplexStreamingCall(s_doPut, null, new CallOptions(headers));
            // The response is read while the upload is written, as a client that learns of a refusal must: a server that
            // fails the call without reading the upload may leave a write waiting for HTTP/2 flow-control credit that
            // never comes (seen once in CI: the write of a 4 MiB message after an Unauthenticated answer), and that
            // write is cancelled once the response has ended.
            using var writes = new System.Threading.CancellationTokenSource();
            Task writing = WriteAllAsync(call, messages, writes.Token);
            try
            {
                // Bounded: a response that never ends fails the test that waits for it instead of hanging the run.
                using var bound = new System.Threading.CancellationTokenSource(ResponseBound);
                var results = new List<byte[]>();
                while (await call.ResponseStream.MoveNext(bound.Token))
                    results.Add(call.ResponseStream.Current);
                await writing;
                return results;
            }
            finally
            {
                await EndAsync(call, writing, writes, dispose);
            }
        }

        /// <summary>After the response: cancels a write still waiting, and waits for the writes, within the response's bound.</summary>
        private static async Task EndAsync(AsyncDuplexStreamingCall<byte[], byte[]> call, Task writing, System.Threading.CancellationTokenSource writes, bool dispose)
        {
            if (!writing.IsCompleted)
            {
                writes.Cancel();
                if (dispose)
                    call.Dispose();
            }
            // Bounded as the response is: a write that outlives its call fails the test instead of hanging the run.
            if (await Task.WhenAny(writing, Task.Delay(ResponseBound)) != writing)
                throw new TimeoutException("a write of the upload did not end after the call's response had");
            await writing;
            if (dispose)
                call.Dispose();
        }

        private static async Task WriteAllAsync(AsyncDuplexStreamingCall<byte[], byte[]> call, IEnumerable<byte[]?> messages, System.Threading.CancellationToken cancellation)
        {
            try
            {
                foreach (byte[]? message in messages)
                    await call.RequestStream.WriteAsync(message!, cancellation);
                await call.RequestStream.CompleteAsync();
            }
            catch (Exception e) when (e is RpcException || e is System.Net.Http.HttpRequestException || e is System.IO.IOException || e is OperationCanceledException || e is ObjectDisposedException)
            {
                // The server failed the call while we were still writing: its status comes with the response. Which
                // exception the write throws depends on whether the client has seen the trailers yet: an RpcException
                // if it has, the HTTP/2 stream's reset if the write got there first; cancelled, once the response ended;
                // disposed, when EndAsync disposed the call before this loop saw the cancellation and began one more write.
            }
        }
    }
}
