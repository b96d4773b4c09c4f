using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// A plain .NET Flight server compressing through the server interceptor, and the official client with and without
    /// the client interceptor: compressed bytes on the wire only for clients that ask, equal batches everywhere.
    /// </summary>
    public sealed class RoundTripTests : IClassFixture<InterceptedStoreFixture>
    {
        private readonly InterceptedStoreFixture _server;

        public RoundTripTests(InterceptedStoreFixture server) => _server = server;

        // Batches written by Arrow .NET and read back may differ from these in buffer padding, so they are compared by value.
        private static List<RecordBatch> Table() => TestTables.Batches(4, 50_000, seed: 7).ToList();

        [Fact]
        public async Task Advertising_client_gets_compressed_bytes_and_equal_batches_and_a_stock_client_gets_them_uncompressed()
        {
            List<RecordBatch> table = Table();
            string ticket = StoreFlightServer.Register(table);
            using var channel = _server.Host.Channel();

            var advertised = new Metadata { { Lz4FlightHeaders.AcceptCodecs, "lz4" } };
            List<byte[]> compressed = await RawFlightClient.DoGetAsync(channel, ticket, advertised);
            List<byte[]> plain = await RawFlightClient.DoGetAsync(channel, ticket, null);
            long compressedBytes = compressed.Sum(p => (long)p.Length), plainBytes = plain.Sum(p => (long)p.Length);
            Assert.True(compressedBytes < plainBytes * 0.8, $"{compressedBytes:N0} bytes on the wire compressed against {plainBytes:N0} uncompressed");

            // What the server wrote is a valid compressed IPC stream for Apache.Arrow.Compression, and the stock reader
            // reads the uncompressed one.
            List<RecordBatch> official = ArrowData.ReadAll(Join(compressed), false, new Apache.Arrow.Compression.CompressionCodecFactory());
            ArrowData.AssertSameValues(table, official);
            List<RecordBatch> stock = await ReadAsync(new FlightClient(channel), ticket);
            ArrowData.AssertSameValues(table, stock);
            List<RecordBatch> intercepted = await ReadAsync(new FlightClient(channel.WithArrowLz4()), ticket);
            ArrowData.AssertSameValues(table, intercepted);
            foreach (List<RecordBatch> list in new[] { table, official, stock, intercepted })
                ArrowData.DisposeAll(list);
        }

        [Fact]
        public async Task Compressed_DoPut_arrives_at_the_handler_as_equal_batches()
        {
            List<RecordBatch> table = Table();
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));
            ArrowData.AssertSameValues(table, await PutAsync(client, table));
            ArrowData.DisposeAll(table);
        }

        [Fact]
        public async Task Compressed_uploads_really_are_compressed_a_server_without_the_interceptor_cannot_read_them()
        {
            await using TestHost plain = await TestHost.StartAsync(StoreFlightServer.Services(null), StoreFlightServer.Map);
            using var channel = plain.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));
            FlightRecordBatchDuplexStreamingCall call = client.StartPut(FlightDescriptor.CreatePathDescriptor("t"));
            List<RecordBatch> table = Table();
            await Assert.ThrowsAnyAsync<Exception>(async () =>
            {
                foreach (RecordBatch batch in table)
                    await call.RequestStream.WriteAsync(batch);
                await call.RequestStream.CompleteAsync();
                while (await call.ResponseStream.MoveNext(default))
                {
                }
            });
            call.Dispose();
            ArrowData.DisposeAll(table);
        }

        [Fact]
        public async Task The_interceptor_registers_without_options_as_the_README_shows()
        {
            await using TestHost host = await TestHost.StartAsync(
                services => services.AddGrpc(o =>
                {
                    o.MaxReceiveMessageSize = null;
                    o.Interceptors.Add<Lz4FlightServerInterceptor>();
                }).AddFlightServer<StoreFlightServer>(),
                StoreFlightServer.Map);
            List<RecordBatch> table = Table();
            using var channel = host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));
            ArrowData.AssertSameValues(table, await PutAsync(client, table));
            ArrowData.DisposeAll(table);
        }

        [Fact]
        public async Task DoExchange_works_both_ways_compressed()
        {
            List<RecordBatch> table = Table();
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));
            List<RecordBatch> back = await CorpusRoundTripTests.ExchangeAsync(client, table);
            ArrowData.AssertSameValues(table, back);
            ArrowData.DisposeAll(table);
            ArrowData.DisposeAll(back);
        }

        [Fact]
        public async Task A_server_error_mid_stream_reaches_the_intercepted_client_after_the_batches_before_it()
        {
            List<RecordBatch> table = Table();
            string ticket = StoreFlightServer.Register(table);
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4());
            using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket("fail-after-2:" + ticket));
            int read = 0;
            var e = await Assert.ThrowsAsync<RpcException>(async () =>
            {
                while (await call.ResponseStream.MoveNext(default))
                    read++;
            });
            Assert.Equal(StatusCode.DataLoss, e.StatusCode);
            Assert.Equal(2, read);
            ArrowData.DisposeAll(table);
        }

        /// <summary>Uploads the table with DoPut and returns what the store's handler received.</summary>
        internal static async Task<List<RecordBatch>> PutAsync(FlightClient client, List<RecordBatch> table)
        {
            string key = Guid.NewGuid().ToString("N");
            using FlightRecordBatchDuplexStreamingCall call = client.StartPut(FlightDescriptor.CreatePathDescriptor("t"), new Metadata { { StoreFlightServer.KeyHeader, key } });
            foreach (RecordBatch batch in table)
                await call.RequestStream.WriteAsync(batch);
            await call.RequestStream.CompleteAsync();
            while (await call.ResponseStream.MoveNext(default))
            {
            }
            return StoreFlightServer.Received[key];
        }

        private static byte[] Join(List<byte[]> payloads) =>
            IpcMessages.Join(payloads.Select(FlightCorpus.Parse).Select(m =>
            {
                (byte[] header, byte[] body) = FlightCorpus.Fields(m);
                return new IpcMessageBytes(header, body);
            }));

        internal static async Task<List<RecordBatch>> ReadAsync(FlightClient client, string ticket)
        {
            using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
            var batches = new List<RecordBatch>();
            while (await call.ResponseStream.MoveNext(default))
                batches.Add(call.ResponseStream.Current);
            return batches;
        }
    }
}
