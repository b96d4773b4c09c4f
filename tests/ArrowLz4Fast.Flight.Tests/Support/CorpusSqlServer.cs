using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Server;
using Apache.Arrow.Flight.Sql;
using Arrow.Flight.Protocol.Sql;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// A Flight SQL server (Apache.Arrow.Flight.Sql 23.0.0, built from source under tests/ThirdParty) whose statement
    /// query is the corpus name of an IPC stream: GetFlightInfo answers with one endpoint whose ticket is a
    /// TicketStatementQuery, as Flight SQL servers do, and DoGet of that ticket streams the stream's batches. Every
    /// other Flight SQL command is left unimplemented.
    /// </summary>
    internal sealed class CorpusSqlServer : FlightSqlServer
    {
        public static Action<IServiceCollection> Services(Lz4FlightServerOptions options) => services =>
            services.AddGrpc(o =>
            {
                o.MaxReceiveMessageSize = null;
                o.MaxSendMessageSize = null;
                o.Interceptors.Add<Lz4FlightServerInterceptor>(options);
            }).AddFlightServer<CorpusSqlServer>();

        public static void Map(WebApplication app) => app.MapFlightEndpoint();

        /// <summary>The batches a query returns, read with the official codec.</summary>
        public static List<RecordBatch> Read(string query) =>
            ArrowData.ReadAll(FlightCorpus.PathOf(query), new Apache.Arrow.Compression.CompressionCodecFactory());

        protected override Task<FlightInfo> GetStatementQueryFlightInfo(CommandStatementQuery commandStatementQuery, FlightDescriptor flightDescriptor, ServerCallContext context)
        {
            List<RecordBatch> batches = Read(commandStatementQuery.Query);
            Schema schema = batches[0].Schema;
            ArrowData.DisposeAll(batches);
            var handle = new TicketStatementQuery { StatementHandle = Google.Protobuf.ByteString.CopyFromUtf8(commandStatementQuery.Query) };
            var ticket = new FlightTicket(Google.Protobuf.MessageExtensions.ToByteString(Google.Protobuf.WellKnownTypes.Any.Pack(handle)));
            return Task.FromResult(new FlightInfo(schema, flightDescriptor, new[] { new FlightEndpoint(ticket, System.Array.Empty<FlightLocation>()) }));
        }

        public override async Task DoGet(FlightTicket ticket, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context)
        {
            // FlightSqlServer.DoGet leaves statement tickets to the implementation: their handle is the server's own.
            var any = Google.Protobuf.WellKnownTypes.Any.Parser.ParseFrom(ticket.Ticket);
            if (!any.Is(TicketStatementQuery.Descriptor))
            {
                await base.DoGet(ticket, responseStream, context);
                return;
            }
            List<RecordBatch> batches = Read(any.Unpack<TicketStatementQuery>().StatementHandle.ToStringUtf8());
            foreach (RecordBatch batch in batches)
                await responseStream.WriteAsync(batch);
            ArrowData.DisposeAll(batches);
        }

        protected override Task<FlightInfo> GetPreparedStatementQueryFlightInfo(CommandPreparedStatementQuery preparedStatementQuery, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetCatalogFlightInfo(CommandGetCatalogs command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetDbSchemaFlightInfo(CommandGetDbSchemas command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetTablesFlightInfo(CommandGetTables command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetTableTypesFlightInfo(CommandGetTableTypes command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetSqlFlightInfo(CommandGetSqlInfo commandGetSqlInfo, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetPrimaryKeysFlightInfo(CommandGetPrimaryKeys command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetExportedKeysFlightInfo(CommandGetExportedKeys command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetImportedKeysFlightInfo(CommandGetImportedKeys command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetCrossReferenceFlightInfo(CommandGetCrossReference command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task<FlightInfo> GetXdbcTypeFlightInfo(CommandGetXdbcTypeInfo command, FlightDescriptor flightDescriptor, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetPreparedStatementQuery(CommandPreparedStatementQuery preparedStatementQuery, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetSqlInfo(CommandGetSqlInfo getSqlInfo, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetCatalog(CommandGetCatalogs command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetTableType(CommandGetTableTypes command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetTables(CommandGetTables command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetPrimaryKeys(CommandGetPrimaryKeys command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetDbSchema(CommandGetDbSchemas command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetExportedKeys(CommandGetExportedKeys command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetImportedKeys(CommandGetImportedKeys command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetCrossReference(CommandGetCrossReference command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task DoGetXbdcTypeInfo(CommandGetXdbcTypeInfo command, FlightServerRecordBatchStreamWriter responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task CreatePreparedStatement(ActionCreatePreparedStatementRequest request, FlightAction action, IAsyncStreamWriter<FlightResult> streamWriter, ServerCallContext context) => throw Unimplemented();
        protected override Task ClosePreparedStatement(ActionClosePreparedStatementRequest request, FlightAction action, IAsyncStreamWriter<FlightResult> streamWriter, ServerCallContext context) => throw Unimplemented();
        protected override Task PutPreparedStatementUpdate(CommandPreparedStatementUpdate command, FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task PutStatementUpdate(CommandStatementUpdate command, FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context) => throw Unimplemented();
        protected override Task PutPreparedStatementQuery(CommandPreparedStatementQuery command, FlightServerRecordBatchStreamReader requestStream, IAsyncStreamWriter<FlightPutResult> responseStream, ServerCallContext context) => throw Unimplemented();

        private static RpcException Unimplemented() => new RpcException(new Status(StatusCode.Unimplemented, "the corpus server answers statement queries only"));
    }
}
