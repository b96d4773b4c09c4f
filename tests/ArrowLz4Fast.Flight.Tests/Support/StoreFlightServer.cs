using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Server;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// A plain Apache.Arrow.Flight.AspNetCore server: DoGet serves registered tables, DoPut keeps what arrives under the
    /// request's <c>test-key</c> header, DoExchange sends each batch back. It knows nothing of compression.
    /// </summary>
    internal class StoreFlightServer : FlightServer
    {
        public const string KeyHeader = "test-key";

        /// <summary>Tables by ticket; a ticket starting "fail-after-N:" fails the call after N batches of the table named after it.</summary>
        public static readonly ConcurrentDictionary<string, IReadOnlyList<RecordBatch>> Tables = new ConcurrentDictionary<string, IReadOnlyList<RecordBatch>>();

        public static readonly ConcurrentDictionary<string, List<RecordBatch>> Received = new ConcurrentDictionary<string, List<RecordBatch>>();

        public static string Register(IReadOnlyList<RecordBatch> batches)
        {
            string ticket = Guid.NewGuid().ToString("N");
            Tables[ticket] = batches;
            return ticket;
        }

        public override async Task DoGet(FlightTicket ticket, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context)
        {
            string name = ticket.Ticket.ToStringUtf8();
            int failAfter = int.MaxValue;
            if (name.StartsWith("fail-after-", StringComparison.Ordinal))
            {
                int colon = name.IndexOf(':', StringComparison.Ordinal);
                failAfter = int.Parse(name.AsSpan(11, colon - 11));
                name = name.Substring(colon + 1);
            }
            int sent = 0;
            foreach (RecordBatch batch in Tables[name])
            {
                if (sent++ == failAfter)
                    throw new RpcException(new Status(StatusCode.DataLoss, "the store fails mid-stream"));
                await responseStream.WriteAsync(batch);
            }
        }

        public override async Task DoPut(FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context)
        {
            string key = context.RequestHeaders.GetValue(KeyHeader) ?? "none";
            var batches = new List<RecordBatch>();
            while (await requestStream.MoveNext(context.CancellationToken))
                batches.Add(requestStream.Current);
            Received[key] = batches;
            await responseStream.WriteAsync(new FlightPutResult("ok"));
        }

        public override async Task DoExchange(FlightServerRecordBatchStreamReader requestStream, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context)
        {
            while (await requestStream.MoveNext(context.CancellationToken))
                await responseStream.WriteAsync(requestStream.Current);
        }

        /// <summary>Registers the server, with the interceptor when <paramref name="options"/> is given.</summary>
        public static Action<IServiceCollection> Services(Lz4FlightServerOptions? options) => services =>
            services.AddGrpc(o =>
            {
                o.MaxReceiveMessageSize = null;
                o.MaxSendMessageSize = null;
                if (options is not null)
                    o.Interceptors.Add<Lz4FlightServerInterceptor>(options);
            }).AddFlightServer<StoreFlightServer>();

        public static void Map(WebApplication app) => app.MapFlightEndpoint();
    }
}
