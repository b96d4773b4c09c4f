using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Flight.Sql;
using Apache.Arrow.Flight.Sql.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Grpc.Net.Client;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// FlightSqlClient over an intercepted invoker (issue #33): a Flight SQL server behind the server interceptor answers
    /// a statement query, and the client reads the DoGet of its ticket through <c>channel.WithArrowLz4()</c>.
    /// Apache.Arrow.Flight.Sql is built from its 23.0.0 source (tests/ThirdParty), as the mirror has no package.
    /// </summary>
    public sealed class FlightSqlTests
    {
        public static IEnumerable<object[]> Queries()
        {
            yield return new object[] { "ipc/pyarrow/strings.arrows" };
            yield return new object[] { "ipc/pyarrow/wide.arrows" };
            yield return new object[] { "ipc/pyarrow/tiny_batches.arrows" };
            if (Corpus.SharedAvailable)
                yield return new object[] { "shared:ipc/pyarrow/numeric.arrows" };
        }

        [Theory]
        [MemberData(nameof(Queries))]
        public async Task FlightSqlClient_reads_a_statement_query_compressed_by_the_server_as_the_codec_does(string query)
        {
            await using TestHost host = await TestHost.StartAsync(CorpusSqlServer.Services(new Lz4FlightServerOptions()), CorpusSqlServer.Map);
            using GrpcChannel channel = host.Channel();
            List<RecordBatch> expected = ArrowData.ReadAll(FlightCorpus.PathOf(query), new Lz4FastCodecFactory());

            var intercepted = new FlightSqlClient(new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { MaxReceiveMessageSize = null })));
            List<RecordBatch> read = await QueryAsync(intercepted, query, null);
            ArrowData.AssertSameValues(expected, read);

            // The same query from a stock client: it does not advertise, so it gets the batches uncompressed and reads
            // them; when it sends the header itself, the server compresses, and Flight 23's reader (no codec factory)
            // refuses the first batch: the intercepted read above really was of compressed messages.
            var stock = new FlightSqlClient(new FlightClient(channel));
            List<RecordBatch> plain = await QueryAsync(stock, query, null);
            ArrowData.AssertSameValues(expected, plain);
            var advertising = new FlightCallOptions { Headers = new Metadata { { Lz4FlightHeaders.AcceptCodecs, Lz4FlightHeaders.Lz4 } } };
            Exception refused = await Assert.ThrowsAnyAsync<Exception>(() => QueryAsync(stock, query, advertising));
            Assert.Contains("ICompressionCodecFactory", refused.ToString(), StringComparison.Ordinal);

            foreach (List<RecordBatch> list in new[] { expected, read, plain })
                ArrowData.DisposeAll(list);
        }

        private static async Task<List<RecordBatch>> QueryAsync(FlightSqlClient client, string query, FlightCallOptions? options)
        {
            FlightInfo info = await client.ExecuteAsync(query);
            var batches = new List<RecordBatch>();
            foreach (FlightEndpoint endpoint in info.Endpoints)
            {
                await foreach (RecordBatch batch in client.DoGetAsync(endpoint.Ticket, options))
                    batches.Add(batch);
            }
            return batches;
        }
    }
}
