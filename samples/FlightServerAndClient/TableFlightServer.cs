using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Server;
using ArrowLz4Fast.Flight;
using Grpc.Core;

namespace ArrowLz4Fast.Samples
{
    /// <summary>
    /// A plain Flight server that knows nothing of compression: DoGet serves a table by ticket, DoPut keeps what arrives
    /// under the descriptor's path. The interceptor compresses and decodes around it.
    /// </summary>
    internal sealed class TableFlightServer : FlightServer
    {
        public static readonly ConcurrentDictionary<string, IReadOnlyList<RecordBatch>> Tables = new();

        public static readonly ConcurrentDictionary<string, List<RecordBatch>> Uploads = new();

        /// <summary>Per call, whether the client asked for LZ4 (the intercepted one does; a stock one cannot).</summary>
        public static readonly ConcurrentDictionary<string, bool> AskedForLz4 = new();

        public override async Task DoGet(FlightTicket ticket, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context)
        {
            string name = ticket.Ticket.ToStringUtf8();
            AskedForLz4[name] = Lz4FlightHeaders.Lists(context.RequestHeaders.GetValue(Lz4FlightHeaders.AcceptCodecs), Lz4FlightHeaders.Lz4);
            foreach (RecordBatch batch in Tables[name])
                await responseStream.WriteAsync(batch);
        }

        public override async Task DoPut(FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context)
        {
            FlightDescriptor descriptor = await requestStream.FlightDescriptor;
            string name = string.Join("/", descriptor.Paths);
            var batches = new List<RecordBatch>();
            while (await requestStream.MoveNext(context.CancellationToken))
                batches.Add(requestStream.Current);
            Uploads[name] = batches;
            await responseStream.WriteAsync(new FlightPutResult("stored"));
        }
    }
}
