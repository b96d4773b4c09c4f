using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Flight;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Ipc;
using FlightMessages = ArrowLz4Fast.Flight.Tests.Support.IpcMessages;
using IpcMessages = ArrowLz4Fast.Tests.Support.IpcMessages;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Issue #33's Flight comparison: a DoGet to the last batch read, over loopback (or the rate-limited loopback of a
    /// network namespace, docs/flight.md), from an in-process Kestrel Flight server. Uncompressed: the stock server
    /// and FlightClient. Lz4Flight: the same server with Lz4FlightServerInterceptor (compressing each call's batches,
    /// every buffer in parallel) and a FlightClient over channel.WithArrowLz4(). Lz4FlightPrecompressed: that client
    /// against a server that sends the compressed messages as they are (what a pyarrow, C++ or arrow-rs server with
    /// compression on another machine puts on the wire), so this process's cores only decode. OfficialFromMemory: the same
    /// compressed messages as one IPC stream in memory, read by ArrowStreamReader with Apache.Arrow.Compression, the
    /// best the official path could do once Flight takes a codec factory, with no network at all.
    /// Server and client share the process and its cores, as BenchmarkDotNet's allocation column does.
    /// </summary>
    [MemoryDiagnoser]
    [Config(typeof(FlightColumnsConfig))]
    public class FlightDoGetBenchmarks
    {
        private TestHost? _stockHost;
        private TestHost? _lz4Host;
        private TestHost? _rawHost;
        private GrpcChannel? _rawChannel;
        private FlightClient? _rawClient;
        private FlightTicket? _rawTicket;
        private FlightClient? _memoryClient;
        private GrpcChannel? _stockChannel;
        private GrpcChannel? _lz4Channel;
        private FlightClient? _stockClient;
        private FlightClient? _lz4Client;
        private FlightTicket? _ticket;
        private byte[] _compressedStream = System.Array.Empty<byte>();

        /// <summary>pyarrow's numeric stream needs ../shared/corpus; without it only the others run.</summary>
        public static IEnumerable<string> DataSets() =>
            File.Exists(FlightData.SharedNumeric) ? new[] { "numeric", "strings", "synthetic" } : new[] { "strings", "synthetic" };

        [ParamsSource(nameof(DataSets))]
        public string Data { get; set; } = "strings";

        [GlobalSetup]
        public void Setup()
        {
            IReadOnlyList<RecordBatch> batches = FlightData.Batches(Data);
            _ticket = new FlightTicket(StoreFlightServer.Register(batches));
            _stockHost = TestHost.StartAsync(StoreFlightServer.Services(null), StoreFlightServer.Map).GetAwaiter().GetResult();
            _lz4Host = TestHost.StartAsync(StoreFlightServer.Services(new Lz4FlightServerOptions { Codec = FlightData.Codec }), StoreFlightServer.Map).GetAwaiter().GetResult();
            _stockChannel = _stockHost.Channel();
            _lz4Channel = _lz4Host.Channel();
            _stockClient = new FlightClient(_stockChannel);
            _lz4Client = new FlightClient(_lz4Channel.WithArrowLz4(new Lz4FlightClientOptions { Codec = FlightData.Codec, MaxReceiveMessageSize = null }));
            _compressedStream = FlightData.Of(Data).CompressedStream;
            _rawHost = TestHost.StartAsync(RawFlightService.Add, RawFlightService.Map).GetAwaiter().GetResult();
            _rawChannel = _rawHost.Channel();
            _rawClient = new FlightClient(_rawChannel.WithArrowLz4(new Lz4FlightClientOptions { Codec = FlightData.Codec, MaxReceiveMessageSize = null }));
            _rawTicket = new FlightTicket(RawFlightService.Register(FlightData.Of(Data).CompressedPayloads));
            var payloads = FlightData.Of(Data).CompressedPayloads.Select(p => p!).ToList();
            _memoryClient = new FlightClient(new MemoryFlightInvoker(payloads).Intercept(new Lz4FlightClientInterceptor(new Lz4FlightClientOptions { Codec = FlightData.Codec, MaxReceiveMessageSize = null })));
        }

        [GlobalCleanup]
        public void Cleanup()
        {
            _stockChannel?.Dispose();
            _lz4Channel?.Dispose();
            _rawChannel?.Dispose();
            _rawHost?.DisposeAsync().AsTask().GetAwaiter().GetResult();
            _stockHost?.DisposeAsync().AsTask().GetAwaiter().GetResult();
            _lz4Host?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }

        [Benchmark(Baseline = true)]
        public Task<long> Uncompressed() => ReadAll(_stockClient!, _ticket!);

        [Benchmark]
        public Task<long> Lz4Flight() => ReadAll(_lz4Client!, _ticket!);

        [Benchmark]
        public Task<long> Lz4FlightPrecompressed() => ReadAll(_rawClient!, _rawTicket!);

        [Benchmark]
        public long OfficialFromMemory()
        {
            long rows = 0;
            using var reader = new ArrowStreamReader(new MemoryStream(_compressedStream, writable: false), new OfficialFactory());
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }

        /// <summary>
        /// The same compressed messages as serialized FlightData in memory, decoded by the client interceptor's own
        /// response path (its marshaller over each payload, then the stream checks) and read by Flight's FlightClient
        /// reader to the last batch, over an in-memory CallInvoker: OfficialFromMemory's counterpart, decode alone.
        /// </summary>
        [Benchmark]
        public Task<long> InterceptorFromMemory() => ReadAll(_memoryClient!, _ticket!);

        /// <summary>
        /// The server interceptor's compression alone, on the same messages, options and cores, with no gRPC and no
        /// client: the ceiling that shows whether Lz4Flight can match Uncompressed when one machine both compresses and
        /// decodes (docs/flight-benchmarks.md).
        /// </summary>
        [Benchmark]
        public long ServerCompressOnly() => FlightData.Of(Data).CompressAll();

        private static async Task<long> ReadAll(FlightClient client, FlightTicket ticket)
        {
            long rows = 0;
            using FlightRecordBatchStreamingCall call = client.GetStream(ticket);
            while (await call.ResponseStream.MoveNext(System.Threading.CancellationToken.None).ConfigureAwait(false))
            {
                rows += call.ResponseStream.Current.Length;
                call.ResponseStream.Current.Dispose();
            }
            return rows;
        }
    }

    /// <summary>The data sets, their FlightData bytes uncompressed and compressed, and their message counts.</summary>
    public sealed class FlightData
    {
        internal static readonly Lz4FastOptions Codec = new();

        internal static string SharedNumeric => Path.Combine(RepositoryPaths.SharedCorpus, "ipc/pyarrow/numeric.arrows");

        private static readonly ConcurrentDictionary<string, FlightData> Cache = new();

        private FlightData(IReadOnlyList<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> plain, IReadOnlyList<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> compressed)
        {
            PlainBytes = plain.Sum(m => (long)m.Metadata.Length + m.Body.Length);
            CompressedBytes = compressed.Sum(m => (long)m.Metadata.Length + m.Body.Length);
            _plain = plain;
            Messages = plain.Count;
            CompressedStream = IpcMessages.Stream(compressed);
            CompressedPayloads = compressed.Select(m => (byte[]?)FlightMessages.FlightData(m.Metadata.ToArray(), m.Body.ToArray())).ToList();
        }

        private readonly IReadOnlyList<(ReadOnlyMemory<byte> Metadata, ReadOnlyMemory<byte> Body)> _plain;

        /// <summary>Compresses every message as the server interceptor does (default options); returns the compressed bytes.</summary>
        public long CompressAll()
        {
            long bytes = 0;
            foreach ((ReadOnlyMemory<byte> metadata, ReadOnlyMemory<byte> body) in _plain)
            {
                if (IpcMessageCompressor.TryCompress(metadata.Span, body.Span, Codec, 0.0, out ReadOnlyMemory<byte> header, out ReadOnlyMemory<byte> compressed))
                    bytes += header.Length + compressed.Length;
            }
            return bytes;
        }

        /// <summary>The compressed messages as serialized FlightData, for the server that sends them as they are.</summary>
        public IReadOnlyList<byte[]?> CompressedPayloads { get; }

        /// <summary>FlightData bytes (data_header + data_body) of every message, as the stock server sends them.</summary>
        public long PlainBytes { get; }

        /// <summary>The same with the batches compressed by the server interceptor's compressor.</summary>
        public long CompressedBytes { get; }

        /// <summary>Messages of the DoGet stream, the schema included.</summary>
        public int Messages { get; }

        public byte[] CompressedStream { get; }

        public static IReadOnlyList<RecordBatch> Batches(string data) => data switch
        {
            "numeric" => ReadAll(File.ReadAllBytes(SharedNumeric)),
            "strings" => ReadAll(File.ReadAllBytes(Path.Combine(RepositoryPaths.Corpus, "ipc/pyarrow/strings.arrows"))),
            _ => SyntheticTable.Batches(),
        };

        public static FlightData Of(string data) => Cache.GetOrAdd(data, d =>
        {
            // The messages the stock Flight writer sends: an uncompressed IPC stream of the batches, message by message.
            IReadOnlyList<RecordBatch> batches = Batches(d);
            using var stream = new MemoryStream();
            using (var writer = new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            var plain = IpcMessages.Of(stream.ToArray()).Select(m => ((ReadOnlyMemory<byte>)m.Metadata, (ReadOnlyMemory<byte>)m.Body)).ToList();
            var compressed = plain.Select(m => IpcMessageCompressor.TryCompress(m.Item1.Span, m.Item2.Span, Codec, 0.0, out var metadata, out var body)
                ? (metadata, body) : m).ToList();
            return new FlightData(plain, compressed);
        });

        private static List<RecordBatch> ReadAll(byte[] bytes)
        {
            var batches = new List<RecordBatch>();
            using var reader = new ArrowStreamReader(new MemoryStream(bytes), new OfficialFactory());
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
                batches.Add(batch);
            return batches;
        }
    }

    public sealed class FlightColumnsConfig : ManualConfig
    {
        public FlightColumnsConfig() => AddColumn(new FlightColumn("Wire"), new FlightColumn("Ratio"), new FlightColumn("Messages"), new FlightColumn("AllocPerMessage"));
    }

    /// <summary>
    /// Computed in the host process from the same data, since BenchmarkDotNet measures time and allocation only: the
    /// FlightData bytes the case moves (header + body, without gRPC and HTTP/2 framing), the compression ratio, the
    /// message count, and BenchmarkDotNet's allocated bytes per operation divided by it.
    /// </summary>
    public sealed class FlightColumn : IColumn
    {
        public FlightColumn(string id) => Id = id;

        public string Id { get; }

        public string ColumnName => Id switch
        {
            "Wire" => "FlightData",
            "Ratio" => "LZ4 ratio",
            "AllocPerMessage" => "Alloc/msg",
            _ => Id,
        };

        public bool AlwaysShow => true;

        public ColumnCategory Category => ColumnCategory.Custom;

        public int PriorityInCategory => 0;

        public bool IsNumeric => true;

        public UnitType UnitType => UnitType.Dimensionless;

        public string Legend => Id switch
        {
            "Wire" => "FlightData bytes the case reads (data_header + data_body of every message)",
            "Ratio" => "Uncompressed FlightData bytes / the case's",
            "AllocPerMessage" => "Allocated bytes per operation (client and in-process server) / messages",
            _ => "FlightData messages per DoGet, the schema included",
        };

        public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

        public bool IsAvailable(Summary summary) => true;

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
        {
            string data = (string)benchmarkCase.Parameters["Data"];
            FlightData flight = FlightData.Of(data);
            bool compressed = benchmarkCase.Descriptor.WorkloadMethod.Name != nameof(FlightDoGetBenchmarks.Uncompressed);
            long bytes = compressed ? flight.CompressedBytes : flight.PlainBytes;
            switch (Id)
            {
                case "Wire":
                    return $"{bytes / 1048576.0:0.00} MiB";
                case "Ratio":
                    return $"{(double)flight.PlainBytes / bytes:0.00}x";
                case "Messages":
                    return flight.Messages.ToString(System.Globalization.CultureInfo.InvariantCulture);
                default:
                    BenchmarkReport? report = summary[benchmarkCase];
                    long? allocated = report?.GcStats.GetBytesAllocatedPerOperation(benchmarkCase);
                    return allocated is long a ? $"{a / 1024.0 / flight.Messages:0.0} KiB" : "-";
            }
        }
    }
}
