using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Server;
using Grpc.Core;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// The Flight server of <see cref="ServerProcess"/>: DoPut reads every batch as an ordinary handler does, holds them
    /// to the end of the call, answers with the row count and disposes them; the action <see cref="Allocated"/> answers
    /// with the bytes this process has allocated so far (<c>GC.GetTotalAllocatedBytes(true)</c>).
    /// </summary>
    internal sealed class MeasuredFlightServer : FlightServer
    {
        public const string Allocated = "allocated";

        public override async Task DoPut(FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context)
        {
            var batches = new List<RecordBatch>();
            long rows = 0;
            while (await requestStream.MoveNext(context.CancellationToken))
            {
                batches.Add(requestStream.Current);
                rows += requestStream.Current.Length;
            }
            await responseStream.WriteAsync(new FlightPutResult(rows.ToString(CultureInfo.InvariantCulture)));
            foreach (RecordBatch batch in batches)
                batch.Dispose();
        }

        public override async Task DoAction(FlightAction request, IAsyncStreamWriter<FlightResult> responseStream, ServerCallContext context)
        {
            if (request.Type != Allocated)
                throw new RpcException(new Status(StatusCode.InvalidArgument, $"unknown action {request.Type}"));
            await responseStream.WriteAsync(new FlightResult(GC.GetTotalAllocatedBytes(precise: true).ToString(CultureInfo.InvariantCulture)));
        }
    }
}
