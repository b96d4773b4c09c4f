using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// Corpus streams of many batches over real gRPC through both compressing writers, whose output comes from pooled
    /// arrays reused from message to message: the server's DoGet and DoExchange responses and the client's uploads read
    /// back equal, and what the server sent reads with Apache.Arrow.Compression.
    /// </summary>
    public sealed class CorpusRoundTripTests : IClassFixture<InterceptedStoreFixture>
    {
        private readonly InterceptedStoreFixture _server;

        public CorpusRoundTripTests(InterceptedStoreFixture server) => _server = server;

        public static IEnumerable<object[]> Streams() => new[] { "ipc/java/tiny_batches.arrows", "ipc/pyarrow/strings.arrows", "ipc/rust/tiny_batches.arrows" }.Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(Streams))]
        public async Task DoGet_DoPut_and_DoExchange_of_a_corpus_stream_read_back_equal(string file)
        {
            List<RecordBatch> table = ArrowData.ReadAll(Corpus.Committed(file), new Apache.Arrow.Compression.CompressionCodecFactory());
            Assert.True(table.Count >= 2, $"{table.Count} batches");
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));

            string ticket = StoreFlightServer.Register(table);
            List<byte[]> sent = await RawFlightClient.DoGetAsync(channel, ticket, new Metadata { { Lz4FlightHeaders.AcceptCodecs, "lz4" } });
            byte[] stream = IpcMessages.Join(sent.Select(FlightCorpus.Parse).Select(FlightCorpus.Fields).Select(f => new IpcMessageBytes(f.Header, f.Body)));
            List<RecordBatch> official = ArrowData.ReadAll(stream, false, new Apache.Arrow.Compression.CompressionCodecFactory());
            List<RecordBatch> got = await RoundTripTests.ReadAsync(client, ticket);
            List<RecordBatch> put = await RoundTripTests.PutAsync(client, table);
            List<RecordBatch> exchanged = await ExchangeAsync(client, table);
            foreach (List<RecordBatch> back in new[] { official, got, put, exchanged })
                ArrowData.AssertSameValues(table, back);
            foreach (List<RecordBatch> list in new[] { table, official, got, put, exchanged })
                ArrowData.DisposeAll(list);
        }

        /// <summary>Sends every batch with DoExchange, reading each back before the next goes.</summary>
        /// <summary>Sends each batch of <paramref name="table"/> on a DoExchange and reads its echo before the next.</summary>
        internal static async Task<List<RecordBatch>> ExchangeAsync(FlightClient client, List<RecordBatch> table)
        {
            using FlightRecordBatchExchangeCall call = client.DoExchange(FlightDescriptor.CreatePathDescriptor("x"));
            var back = new List<RecordBatch>();
            foreach (RecordBatch batch in table)
            {
                await call.RequestStream.WriteAsync(batch);
                Assert.True(await call.ResponseStream.MoveNext(default));
                back.Add(call.ResponseStream.Current);
            }
            await call.RequestStream.CompleteAsync();
            Assert.False(await call.ResponseStream.MoveNext(default));
            return back;
        }
    }
}
