using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Flight.Server;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The Flight setup snippets of README.md and docs/flight.md, line for line (DocSnippetTests checks that they are
    /// here), run against a real server (the setup snippets configure theirs): a DoGet and a compressed DoPut read back
    /// the table, whose batches are over gRPC's default 4 MB message limit compressed or not, and over the interceptors'
    /// default 4 MiB limit on decoded bytes, so the snippets' limits (gRPC's, which bound decoded bytes too) are needed.
    /// </summary>
    public sealed class FlightDocSnippetTests
    {
        // A batch of 200,000 rows: over 6 MB LZ4-compressed (32 random bytes a row stay raw), more uncompressed.
        private static List<RecordBatch> Table() => TestTables.Batches(1, 200_000, seed: 11).ToList();

        // The calls README.md's "Flight" section names, with the limits it asks for.
        [Fact]
        public async Task Readme_flight_setup()
        {
            (WebApplicationBuilder builder, string address) = Prepare();

            // SNIPPET
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = 64 << 20 };
            var channel = GrpcChannel.ForAddress(address, channelOptions);
            var client = new FlightClient(channel.WithArrowLz4(channelOptions)); // the channel's limit, on decoded bytes too;
                                                                             // reads LZ4 from pyarrow, C++, arrow-rs and .NET servers
            var uploads = new FlightClient(channel.WithArrowLz4(channelOptions, new Lz4FlightClientOptions
            {
                CompressUploads = true,                                      // DoPut/DoExchange, every buffer in parallel
                InnerCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory(), // ZSTD responses too
            }));

            builder.Services.AddGrpc(o => o.MaxReceiveMessageSize = 64 << 20) // for uploads: wire and decoded bytes
                .AddArrowLz4()                                               // decodes uploads, compresses for clients that ask
                .AddFlightServer<MyFlightServer>();
            // SNIPPET END

            await RunAsync(builder, channel, client, uploads);
        }

        // docs/flight.md, "Setup".
        [Fact]
        public async Task Flight_doc_setup()
        {
            (WebApplicationBuilder builder, string address) = Prepare();

            // SNIPPET
            // Client: any FlightClient (and FlightSqlClient, which takes one) over the intercepted invoker. gRPC refuses a message
            // over 4 MB by default, and a Flight message is a whole batch: raise the limit (Message size); it bounds decoded bytes too.
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = 64 << 20 };
            var channel = GrpcChannel.ForAddress(address, channelOptions);
            var client = new FlightClient(channel.WithArrowLz4(channelOptions, new Lz4FlightClientOptions
            {
                InnerCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory(), // ZSTD too (optional)
                CompressUploads = true,                                                      // DoPut/DoExchange (optional)
            }));

            // Server (Apache.Arrow.Flight.AspNetCore and ArrowLz4Fast.Flight.AspNetCore): the LZ4 interceptor goes after those
            // added before it (authentication first), and gRPC's limit for uploads bounds their decoded bytes too.
            builder.Services.AddGrpc(o =>
            {
                o.MaxReceiveMessageSize = 64 << 20;
                o.Interceptors.Add<MyAuthInterceptor>();
            }).AddArrowLz4().AddFlightServer<MyFlightServer>();
            // SNIPPET END

            await RunAsync(builder, channel, client, client);
        }

        // docs/flight.md, "Ending a call".
        [Fact]
        public async Task Flight_doc_ending_a_call()
        {
            await using TestHost host = await TestHost.StartAsync(StoreFlightServer.Services(new Lz4FlightServerOptions()), StoreFlightServer.Map);
            using GrpcChannel channel = host.Channel();
            // The table's batch decodes past the default 4 MiB: no limit, as the test channel has none.
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { MaxReceiveMessageSize = null }));
            List<RecordBatch> table = Table();
            var ticket = new FlightTicket(StoreFlightServer.Register(table));
            var batches = new List<RecordBatch>();

            // SNIPPET
            using (FlightRecordBatchStreamingCall call = client.GetStream(ticket))   // disposing ends the call if the loop stops early
            {
                await foreach (RecordBatch batch in call.ResponseStream)
                    batches.Add(batch);
            }
            // SNIPPET END

            ArrowData.AssertSameValues(table, batches);
            ArrowData.DisposeAll(batches);
            ArrowData.DisposeAll(table);
        }

        private static (WebApplicationBuilder Builder, string Address) Prepare()
        {
            // The channel is made before the server listens (as in the snippets); it connects at the first call.
            int port;
            using (var probe = new TcpListener(IPAddress.Loopback, 0))
            {
                probe.Start();
                port = ((IPEndPoint)probe.LocalEndpoint).Port;
            }
            WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
            builder.WebHost.ConfigureKestrel(o => o.Listen(IPAddress.Loopback, port, l => l.Protocols = HttpProtocols.Http2));
            builder.Logging.ClearProviders();
            return (builder, $"http://127.0.0.1:{port}");
        }

        private static async Task RunAsync(WebApplicationBuilder builder, GrpcChannel channel, FlightClient client, FlightClient uploads)
        {
            await using WebApplication app = builder.Build();
            app.MapFlightEndpoint();
            await app.StartAsync();
            try
            {
                List<RecordBatch> table = Table();
                string ticket = StoreFlightServer.Register(table);
                ArrowData.AssertSameValues(table, await RoundTripTests.ReadAsync(client, ticket));
                ArrowData.AssertSameValues(table, await RoundTripTests.PutAsync(uploads, table));
            }
            finally
            {
                channel.Dispose();
                await app.StopAsync();
            }
        }

        /// <summary>The docs' authentication interceptor: here it lets every call through.</summary>
        private sealed class MyAuthInterceptor : Grpc.Core.Interceptors.Interceptor
        {
        }

        /// <summary>The snippets' server: the test store, which knows nothing of compression.</summary>
        private sealed class MyFlightServer : StoreFlightServer
        {
        }
    }
}
