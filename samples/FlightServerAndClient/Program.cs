// A Flight server and two clients in one process, over real gRPC on 127.0.0.1: Kestrel with HTTP/2, MapFlightEndpoint,
// the server interceptor (Lz4FlightServerInterceptor) and the client one (WithArrowLz4), with gRPC's message limits
// raised on both sides. It sends a table of two batches of 8,192 rows x 200 columns, each over 4 MB compressed or not,
// by DoGet and DoPut through an intercepted client (LZ4 both ways) and a stock one (uncompressed), and checks every
// value. Then it shows what gRPC's default 4 MB receive limits do to the same calls: they fail with ResourceExhausted.
//
//   dotnet run -c Release --project samples/FlightServerAndClient
//
// Exits non-zero if a call fails or a value differs, or if a default limit lets a batch through.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Ipc;
using ArrowLz4Fast;
using ArrowLz4Fast.Flight;
using ArrowLz4Fast.Samples;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

const int Rows = 8_192;
const int Columns = 200;
// One Flight message carries one batch, and gRPC refuses a message over the receiver's limit (4 MB by default). The
// limit counts wire bytes, compressed ones when compressed. What a message decodes to is bounded by the same gRPC limits:
// on the server with AddArrowLz4(), on the client with WithArrowLz4(channelOptions, ...), which reads the channel's.
const int MaxMessageSize = 64 << 20;

List<RecordBatch> table = new() { SampleTable.Make(Rows, Columns, seed: 1), SampleTable.Make(Rows, Columns, seed: 2) };
Console.WriteLine($"Table: {table.Count} batches of {Rows:N0} rows x {Columns} columns; one batch is {SampleTable.IpcLength(table[0], null):N0} bytes "
    + $"as uncompressed IPC, {SampleTable.IpcLength(table[0], new Lz4FastCodecFactory()):N0} as LZ4 IPC (gRPC's default limit: {4 << 20:N0})");

// The server: Kestrel on a free port of 127.0.0.1, HTTP/2 without TLS, the limits raised; a second one at gRPC's defaults.
await using WebApplication app = await StartServerAsync(MaxMessageSize);
string address = Address(app);
Console.WriteLine($"Server: {address}, HTTP/2, AddArrowLz4(), MaxReceiveMessageSize {MaxMessageSize:N0}");
await using WebApplication defaultServer = await StartServerAsync(null);

int failures = 0;
try
{
    // The clients: one channel with the raised limit; the intercepted client reads LZ4 and compresses its uploads.
    var channelOptions = new GrpcChannelOptions { MaxReceiveMessageSize = MaxMessageSize };
    using var channel = GrpcChannel.ForAddress(address, channelOptions);
    var intercepted = new FlightClient(channel.WithArrowLz4(channelOptions, new Lz4FlightClientOptions { CompressUploads = true }));
    var stock = new FlightClient(channel);

    TableFlightServer.Tables["table"] = table;
    foreach ((string name, FlightClient client) in new[] { ("intercepted", intercepted), ("stock", stock) })
    {
        List<RecordBatch> got = await DoGetAsync(client, "table");
        string how = TableFlightServer.AskedForLz4["table"] ? "LZ4, the server compressed for it" : "uncompressed";
        Check($"DoGet, {name} client: {got.Count} batches, {got.Sum(b => b.Length):N0} rows ({how})", SampleTable.Same(table, got));
        Dispose(got);

        await DoPutAsync(client, $"upload-{name}", table);
        List<RecordBatch> stored = TableFlightServer.Uploads[$"upload-{name}"];
        string sent = name == "intercepted" ? "sent LZ4-compressed (CompressUploads), decoded by the server interceptor" : "uncompressed";
        Check($"DoPut, {name} client: {stored.Count} batches, {stored.Sum(b => b.Length):N0} rows stored ({sent})", SampleTable.Same(table, stored));
        Dispose(stored);
    }

    // The same calls at gRPC's default 4 MB receive limits: every call fails, compressed or not. A client's DoGet fails
    // at the read; an upload's write fails with Cancelled when the server ends the call, whose status is the reason.
    using var defaults = GrpcChannel.ForAddress(Address(defaultServer));
    TableFlightServer.Tables["small-limit"] = table;
    foreach ((string name, FlightClient client) in new[] { ("intercepted", new FlightClient(defaults.WithArrowLz4(new Lz4FlightClientOptions { CompressUploads = true }))), ("stock", new FlightClient(defaults)) })
    {
        await ExpectResourceExhausted($"DoGet at gRPC's default 4 MB limit, {name} client", async () => Dispose(await DoGetAsync(client, "small-limit")));
        await ExpectResourceExhausted($"DoPut at gRPC's default 4 MB limit, {name} client", () => DoPutAsync(client, $"small-limit-{name}", table));
    }
}
catch (Exception e) when (e is RpcException or InvalidDataException)
{
    Console.Error.WriteLine($"FAILED: {e.GetType().Name}: {e.Message}");
    failures++;
}
finally
{
    await defaultServer.StopAsync();
    await app.StopAsync();
    Dispose(table);
}

if (failures != 0)
{
    Console.Error.WriteLine($"FAILED: {failures} check(s)");
    return 1;
}
Console.WriteLine("OK: both clients read and wrote the table over Flight");
return 0;

void Check(string what, bool ok)
{
    Console.WriteLine($"{what}: {(ok ? "every value equal" : "FAILED")}");
    if (!ok)
        failures++;
}

static async Task<List<RecordBatch>> DoGetAsync(FlightClient client, string ticket)
{
    using FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
    var batches = new List<RecordBatch>();
    while (await call.ResponseStream.MoveNext())
        batches.Add(call.ResponseStream.Current);
    return batches;
}

static async Task DoPutAsync(FlightClient client, string path, IReadOnlyList<RecordBatch> batches)
{
    using FlightRecordBatchDuplexStreamingCall call = client.StartPut(FlightDescriptor.CreatePathDescriptor(path));
    try
    {
        foreach (RecordBatch batch in batches)
            await call.RequestStream.WriteAsync(batch);
        await call.RequestStream.CompleteAsync();   // a compressed upload's last write fails here, if it fails
    }
    catch (RpcException)
    {
        // A server that ended the call (a message over its limit) leaves the write only Cancelled: read its status.
        while (await call.ResponseStream.MoveNext())
        {
        }
        throw;
    }
    while (await call.ResponseStream.MoveNext())
    {
    }
}

async Task ExpectResourceExhausted(string what, Func<Task> call)
{
    try
    {
        await call();
        Check($"{what}: went through, although the message is over the limit", false);
    }
    catch (RpcException e) when (e.StatusCode == StatusCode.ResourceExhausted)
    {
        Console.WriteLine($"{what}: {e.StatusCode} ({e.Status.Detail}), as expected");
    }
}

static async Task<WebApplication> StartServerAsync(int? maxReceiveMessageSize)
{
    WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
    builder.WebHost.ConfigureKestrel(o => o.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2));
    builder.Logging.ClearProviders();
    builder.Services.AddGrpc(o =>
    {
        if (maxReceiveMessageSize is int limit)
            o.MaxReceiveMessageSize = limit;                          // uploads, DoPut and DoExchange: wire and decoded bytes
    }).AddArrowLz4().AddFlightServer<TableFlightServer>();          // else gRPC's default limit, 4 MiB
    WebApplication app = builder.Build();
    app.MapFlightEndpoint();
    await app.StartAsync();
    return app;
}

static string Address(WebApplication app) => app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();

static void Dispose(IEnumerable<RecordBatch> batches)
{
    foreach (RecordBatch batch in batches)
        batch.Dispose();
}
