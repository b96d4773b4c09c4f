using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Grpc.Core;
using Grpc.Net.Client;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// <c>channel.WithArrowLz4(channelOptions, options)</c> bounds each decoded response message by the channel's own
    /// <c>GrpcChannelOptions.MaxReceiveMessageSize</c>: a DoGet of 20 MiB of zeros (about 80 KiB on the wire, LZ4 as a
    /// pyarrow or C++ server sends it) is refused under a 16 MiB channel limit, naming it, and arrives under 32 MiB; with
    /// no channel limit the 1 GiB response is refused at the documented 64 MiB; an option the user set wins both ways.
    /// </summary>
    [Collection(nameof(ReceiveLimitTests))]
    public sealed class ClientLimitDefaultTests : IAsyncLifetime
    {
        private const int MiB = 1 << 20;
        private const long Rows20MiB = 20L * MiB / sizeof(long);
        private static readonly Lazy<List<byte[]?>> s_twentyMiB = new Lazy<List<byte[]?>>(() => ZeroBomb.Payloads(Rows20MiB));
        private TestHost? _host;

        public async Task InitializeAsync() => _host = await TestHost.StartAsync(RawFlightService.Add, RawFlightService.Map);

        public async Task DisposeAsync() => await _host!.DisposeAsync();

        [Fact]
        public async Task A_response_over_the_channels_limit_after_decoding_is_refused_naming_it()
        {
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = 16 * MiB };
            Assert.InRange(ZeroBomb.WireBytes(s_twentyMiB.Value), 1, MiB);
            using GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, channelOptions);
            var e = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(channel.WithArrowLz4(channelOptions), s_twentyMiB.Value));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains("FlightData message 1 of the DoGet stream", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains($"({16 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("this is the channel's GrpcChannelOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Raising_the_channels_limit_raises_the_decoded_bound()
        {
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = 32 * MiB };
            using GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, channelOptions);
            await AssertArrivesAsync(channel.WithArrowLz4(channelOptions, new Lz4FlightClientOptions { CompressUploads = true }));
        }

        [Fact]
        public async Task The_option_overrides_the_channels_limit_both_ways()
        {
            var narrow = new GrpcChannelOptions { MaxReceiveMessageSize = 16 * MiB };
            using (GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, narrow))
                await AssertArrivesAsync(channel.WithArrowLz4(narrow, new Lz4FlightClientOptions { MaxReceiveMessageSize = 32 * MiB }));

            var wide = new GrpcChannelOptions { MaxReceiveMessageSize = 64 * MiB };
            using (GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, wide))
            {
                var e = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(channel.WithArrowLz4(wide, new Lz4FlightClientOptions { MaxReceiveMessageSize = 4 * MiB }), s_twentyMiB.Value));
                Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
                Assert.Contains($"({4 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
                Assert.Contains("raise Lz4FlightClientOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
            }
        }

        [Fact]
        public async Task With_no_channel_limit_the_documented_default_bounds_the_decoded_bytes()
        {
            Assert.Equal(64 * MiB, ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize);
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = null };
            using GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, channelOptions);
            CallInvoker invoker = channel.WithArrowLz4(channelOptions);
            await AssertArrivesAsync(invoker);
            var e = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(invoker, ZeroBomb.GiB));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains($"({64 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize, taken because the channel's GrpcChannelOptions.MaxReceiveMessageSize is null", e.Status.Detail, StringComparison.Ordinal);
        }

        [Fact]
        public async Task A_call_with_null_options_keeps_its_meaning_on_a_GrpcChannel()
        {
            // channel.WithArrowLz4(null) binds to the GrpcChannel overload: null channel options must mean none known (the
            // options' own 4 MiB default), not a failure, as before that overload existed.
            var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = 64 * MiB };
            using GrpcChannel channel = GrpcChannel.ForAddress(_host!.Address, channelOptions);
            var e = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(channel.WithArrowLz4(null), s_twentyMiB.Value));
            Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
            Assert.Contains($"({4 * MiB} bytes)", e.Status.Detail, StringComparison.Ordinal);
            Assert.Contains("raise Lz4FlightClientOptions.MaxReceiveMessageSize", e.Status.Detail, StringComparison.Ordinal);
        }

        private static Task<List<RecordBatch>> ReadAsync(CallInvoker invoker, IReadOnlyList<byte[]?> payloads) =>
            RoundTripTests.ReadAsync(new FlightClient(invoker), RawFlightService.Register(payloads));

        private static async Task AssertArrivesAsync(CallInvoker invoker)
        {
            List<RecordBatch> read = await ReadAsync(invoker, s_twentyMiB.Value);
            RecordBatch batch = Assert.Single(read);
            Assert.Equal(Rows20MiB, batch.Length);
            Assert.Equal(0, ((Int64Array)batch.Column(0)).GetValue((int)Rows20MiB - 1));
            ArrowData.DisposeAll(read);
        }
    }
}
