using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using ArrowLz4Fast.Flight.Tests.Support;
using Grpc.Core;
using Grpc.Net.Client;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// What one upload costs the server alone: the server runs in a child process (<see cref="ServerProcess"/>) that
    /// reports its own <c>GC.GetTotalAllocatedBytes(true)</c> before and after each call, the client in this one, so the
    /// two figures are apart. An ordinary upload costs the server its decoded body, the copy of the wire body Flight's
    /// marshaller makes, and a small constant; the 1 GiB bomb under a 16 MiB limit is refused with under 64 MiB.
    /// </summary>
    [Collection(nameof(ReceiveLimitTests))]
    public sealed class ServerMemoryTests
    {
        private const int MiB = 1 << 20;
        private const int Rounds = 3;
        private readonly ITestOutputHelper _output;

        public ServerMemoryTests(ITestOutputHelper output) => _output = output;

        [Fact]
        public async Task An_ordinary_upload_costs_the_server_its_decoded_body_the_wire_copy_and_a_small_constant()
        {
            List<byte[]?> ordinary = ZeroBomb.Payloads(1 << 20, ordinary: true);
            long wire = ZeroBomb.WireBytes(ordinary), decoded = 8 * MiB;
            Measured accepted, refused;
            await using (ServerProcess server = await ServerProcess.StartAsync(16 * MiB, 16 * MiB))
            {
                using GrpcChannel channel = server.Channel();
                accepted = await MeasureAsync(channel, async () => Assert.Equal(1 << 20, Rows(await RawFlightClient.DoPutAsync(channel, ordinary, "ordinary"))));
                using RecordBatch batch = ZeroBomb.Batch(1 << 20, ordinary: true);
                Measured flightClient = await MeasureAsync(channel, () => PutAsync(channel, batch));
                _output.WriteLine($"the same 8 MiB batch through FlightClient with CompressUploads (compressed in the call): server {flightClient.Server:N0}, client {flightClient.Client:N0} bytes");
            }
            // Refused before decoding: what the server allocates for the wire bytes alone.
            await using (ServerProcess server = await ServerProcess.StartAsync(16 * MiB, 1 * MiB))
            {
                using GrpcChannel channel = server.Channel();
                refused = await MeasureAsync(channel, async () => Assert.Equal(StatusCode.ResourceExhausted, (await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, ordinary, "refused"))).StatusCode));
            }
            long decoding = accepted.Server - refused.Server;
            _output.WriteLine($"ordinary upload: wire {wire:N0} bytes, decoded {decoded:N0}; server {accepted.Server:N0} ({(double)accepted.Server / decoded:F3} per decoded byte), client {accepted.Client:N0}; "
                + $"refused before decoding: server {refused.Server:N0} (the wire's part, {refused.Server - wire:+#,0;-#,0;0} beside the wire bytes), client {refused.Client:N0}; "
                + $"decoding {decoding:N0} ({decoding - decoded:+#,0;-#,0;0} beside the body); the action's own cost {accepted.Overhead:N0}, subtracted");
            Assert.True(accepted.Server >= decoded, $"the server allocated {accepted.Server:N0} bytes, less than the decoded body: the measurement does not see it");
            Assert.True(accepted.Server < decoded + wire + (256 << 10), $"the server allocated {accepted.Server:N0} bytes for a {decoded:N0}-byte body, {wire:N0} on the wire");
        }

        [Fact]
        public async Task The_1GiB_bomb_under_a_16MiB_limit_is_refused_with_under_64MiB_allocated_in_the_server()
        {
            List<byte[]?> bomb = ZeroBomb.GiB;
            long wire = ZeroBomb.WireBytes(bomb);
            await using ServerProcess server = await ServerProcess.StartAsync(16 * MiB, 16 * MiB);
            using GrpcChannel channel = server.Channel();
            Measured refused = await MeasureAsync(channel, async () =>
            {
                var e = await Assert.ThrowsAsync<RpcException>(() => RawFlightClient.DoPutAsync(channel, bomb, "bomb"));
                Assert.Equal(StatusCode.ResourceExhausted, e.StatusCode);
                Assert.Contains("(16777216 bytes)", e.Status.Detail, StringComparison.Ordinal);
            });
            _output.WriteLine($"1 GiB bomb: wire {wire:N0} bytes; server {refused.Server:N0} ({refused.Server - wire:+#,0;-#,0;0} beside the wire bytes), client {refused.Client:N0}; the action's own cost {refused.Overhead:N0}, subtracted");
            Assert.True(refused.Server < 64 * MiB, $"the server allocated {refused.Server:N0} bytes during the refused call");
        }

        /// <summary>What one run of <paramref name="call"/> allocated in the server and in the client: the least of a few, after a warm-up.</summary>
        private static async Task<Measured> MeasureAsync(GrpcChannel channel, Func<Task> call)
        {
            await RawFlightClient.DoPutAsync(channel, ZeroBomb.Payloads(1000, ordinary: true), "warm-up");
            await call();
            long overhead = long.MaxValue, server = long.MaxValue, client = long.MaxValue;
            for (int round = 0; round < Rounds; round++)
            {
                long first = await ServerProcess.AllocatedAsync(channel);
                overhead = Math.Min(overhead, await ServerProcess.AllocatedAsync(channel) - first);
            }
            for (int round = 0; round < Rounds; round++)
            {
                long serverBefore = await ServerProcess.AllocatedAsync(channel);
                long clientBefore = GC.GetTotalAllocatedBytes(precise: true);
                await call();
                client = Math.Min(client, GC.GetTotalAllocatedBytes(precise: true) - clientBefore);
                server = Math.Min(server, await ServerProcess.AllocatedAsync(channel) - serverBefore - overhead);
            }
            return new Measured(server, client, overhead);
        }

        /// <summary>The row count the server's DoPut answers with (PutResult.app_metadata, field 1).</summary>
        private static long Rows(List<byte[]> results)
        {
            byte[] result = Assert.Single(results);
            Assert.Equal(0x0A, result[0]);
            return long.Parse(System.Text.Encoding.ASCII.GetString(result, 2, result[1]), CultureInfo.InvariantCulture);
        }

        private static async Task PutAsync(GrpcChannel channel, RecordBatch batch)
        {
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }));
            using FlightRecordBatchDuplexStreamingCall call = client.StartPut(FlightDescriptor.CreatePathDescriptor("ordinary"));
            await call.RequestStream.WriteAsync(batch);
            await call.RequestStream.CompleteAsync();
            Assert.True(await call.ResponseStream.MoveNext(default));
            Assert.Equal("1048576", call.ResponseStream.Current.ApplicationMetadata.ToStringUtf8());
        }

        private readonly record struct Measured(long Server, long Client, long Overhead);
    }
}
