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
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// What real servers send: every corpus IPC stream's messages, as they are, as FlightData from a server on Flight's
    /// DoGet path, read by the official FlightClient through the interceptor, against ArrowStreamReader with
    /// Apache.Arrow.Compression over the same stream.
    /// </summary>
    public sealed class CorpusDoGetTests : IClassFixture<RawServerFixture>
    {
        private readonly RawServerFixture _server;

        public CorpusDoGetTests(RawServerFixture server) => _server = server;

        public static IEnumerable<object[]> Streams() => FlightCorpus.StreamData();

        [Theory]
        [MemberData(nameof(Streams))]
        public async Task Intercepted_client_reads_every_corpus_stream_as_the_official_codec_does(string name)
        {
            string path = FlightCorpus.PathOf(name);
            List<RecordBatch> expected = ArrowData.ReadAll(path, new Apache.Arrow.Compression.CompressionCodecFactory());
            try
            {
                if (FlightCorpus.HasDictionaries(path))
                {
                    // Flight 23's reader throws NotImplementedException on any dictionary batch; the decoded messages
                    // are checked as an IPC stream instead (MarshallerTests), and the read fails the same way here.
                    await Assert.ThrowsAsync<NotImplementedException>(() => ReadAsync(path));
                    return;
                }
                List<RecordBatch> actual = await ReadAsync(path);
                ArrowData.AssertSame(expected, actual);
                Assert.NotEmpty(actual);
                ArrowData.DisposeAll(actual);
            }
            finally
            {
                ArrowData.DisposeAll(expected);
            }
        }

        [Fact]
        public async Task Zstd_without_an_inner_factory_fails_the_read_saying_what_to_pass()
        {
            string path = Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows");
            var e = await Assert.ThrowsAsync<NotSupportedException>(() => ReadAsync(path, new Lz4FlightClientOptions()));
            Assert.Contains("InnerCodecFactory", e.Message);
            Assert.Contains("FlightData message 1 of the DoGet stream", e.Message);
        }

        [Fact]
        public async Task Stock_client_cannot_read_a_compressed_stream_which_is_why_negotiation_exists()
        {
            string path = Corpus.Committed("ipc/pyarrow/strings.arrows");
            string ticket = RawFlightService.Register(FlightCorpus.Payloads(path));
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel);
            var call = client.GetStream(new FlightTicket(ticket));
            Exception e = await Assert.ThrowsAnyAsync<Exception>(async () =>
            {
                while (await call.ResponseStream.MoveNext(default))
                {
                }
            });
            Assert.Contains("ICompressionCodecFactory", e.Message);
        }

        private async Task<List<RecordBatch>> ReadAsync(string path, Lz4FlightClientOptions? options = null)
        {
            string ticket = RawFlightService.Register(FlightCorpus.Payloads(path));
            using var channel = _server.Host.Channel();
            var client = new FlightClient(channel.WithArrowLz4(options ?? new Lz4FlightClientOptions { InnerCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory(), MaxReceiveMessageSize = null }));
            var batches = new List<RecordBatch>();
            using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
            while (await call.ResponseStream.MoveNext(default))
                batches.Add(call.ResponseStream.Current);
            return batches;
        }
    }

    /// <summary>One raw FlightData server for a test class.</summary>
    public sealed class RawServerFixture : IAsyncLifetime
    {
        internal TestHost Host { get; private set; } = null!;

        public async Task InitializeAsync() => Host = await TestHost.StartAsync(RawFlightService.Add, RawFlightService.Map);

        public async Task DisposeAsync() => await Host.DisposeAsync();
    }
}
