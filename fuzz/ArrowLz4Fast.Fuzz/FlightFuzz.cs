using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using System.Net.Http;
using Apache.Arrow;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Flight;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Frames;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using Grpc.Net.Client;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// --flight: mutants of the corpus streams' messages as FlightData (data_header, data_body, or the protobuf bytes
    /// themselves), decoded in both directions the interceptors decode: the client's response marshaller over the gRPC
    /// payload with the per-call checks, and the server's upload decode after protobuf's parser, both under a 16 MiB
    /// receive limit. Only InvalidDataException (with its Lz4FrameException when it has an offset), NotSupportedException
    /// and, for a message past the limit, RpcException (ResourceExhausted) may come out, each mutant within a time budget
    /// and an allocation budget; when both directions accept a stream, they must agree with each other and, where it
    /// reads the mutant too, with ArrowStreamReader and Apache.Arrow.Compression over the same messages.
    /// Each mutant is also read over real gRPC, from a Kestrel server in this process, by the official FlightClient
    /// through the client interceptor (same receive limit), on one channel of one HTTP/2 connection, and never disposed:
    /// a refusal must end its call by itself (else the connection's 100 streams fill and a read hangs, within the
    /// budget), it must come out as the package's exception (its refusal at the limit included), not gRPC's, and it must
    /// agree with the in-process read; at the end no call is open.
    /// </summary>
    internal static class FlightFuzz
    {
        private static readonly TimeSpan s_budget = TimeSpan.FromSeconds(20);
        private static readonly TimeSpan s_settle = TimeSpan.FromSeconds(10);
        // Set by a read over gRPC that hung: every later call on the channel would wait too, so they are not made.
        private static int s_wedged;

        /// <summary>The receive limit both directions decode under: a mutant declaring more must be refused before it is allocated.</summary>
        private const int ReceiveLimit = 16 << 20;

        /// <summary>
        /// What decoding one mutant, both directions, may allocate on its thread beyond its unmutated seed: one message is
        /// mutated, and may grow by at most the limit in each direction. A declared length past the limit that were
        /// allocated before being refused would cost more.
        /// </summary>
        private const long AllocationMargin = (2L * ReceiveLimit) + (1 << 20);

        private static readonly MessageDescriptor s_descriptor = (MessageDescriptor)typeof(Apache.Arrow.Flight.Client.FlightClient).Assembly
            .GetType("Apache.Arrow.Flight.Protocol.FlightData", throwOnError: true)!
            .GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!;

        /// <summary>FlightData's protobuf descriptor, as Flight's client marshals it.</summary>
        internal static MessageDescriptor Descriptor => s_descriptor;

        public static int Run(FuzzOptions options, string root)
        {
            var seeds = new List<(string Name, List<IpcMessageBytes> Messages)>();
            foreach (string dir in new[] { Path.Combine(root, "corpus", "ipc"), Path.Combine(CorpusLocator.SharedDirectory, "ipc") })
            {
                if (!Directory.Exists(dir))
                    continue;
                foreach (string file in Directory.EnumerateFiles(dir, "*.arrows", SearchOption.AllDirectories).OrderBy(f => f, StringComparer.Ordinal))
                {
                    string name = Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file);
                    if (new FileInfo(file).Length > 4 << 20 || seeds.Any(s => s.Name == name))
                        continue; // large streams make slow mutants; their shapes are in the small ones
                    seeds.Add((name, IpcMessages.Split(File.ReadAllBytes(file))));
                }
            }
            Console.WriteLine($"fuzz --flight: {seeds.Count} seed streams, seed {options.Seed}, mutants {options.Start}..{options.Start + options.Count - 1}, {options.Threads} thread(s)");

            var settings = new FlightCodecSettings(null, new Apache.Arrow.Compression.CompressionCodecFactory(), ReceiveLimit, 0, limitOptions: "the fuzzer's settings");
            var deserializer = new FlightDataDeserializer(FlightDataFields.Of(s_descriptor), settings);
            // What each seed costs unmutated, for the allocation budget.
            var baselines = seeds.Select(seed => Check(seed.Messages.Select(m => IpcMessages.FlightData(m.Header, m.Body)).ToList(), deserializer, settings).Allocated).ToList();
            TestHost host = TestHost.StartAsync(RawFlightService.Add, RawFlightService.Map).GetAwaiter().GetResult();
            using var open = new OpenRequests(host);
            using GrpcChannel channel = host.Channel(new SocketsHttpHandler { EnableMultipleHttp2Connections = false });
            var client = new FlightClient(channel.WithArrowLz4(new Lz4FlightClientOptions { InnerCodecFactory = new Apache.Arrow.Compression.CompressionCodecFactory(), MaxReceiveMessageSize = ReceiveLimit }));
            long first = options.Index ?? options.Start;
            long count = options.Index.HasValue ? 1 : options.Count;
            int failures = 0, rejected = 0, accepted = 0, compared = 0, raised = 0, overLimit = 0, arbitrated = 0;
            long largest = 0;
            var findings = new ConcurrentQueue<string>();
            Parallel.For(0, count, new ParallelOptions { MaxDegreeOfParallelism = options.Threads }, k =>
            {
                long index = first + k;
                var random = new Random(unchecked((int)(options.Seed * 2654435761UL) ^ (int)index ^ (int)(index >> 32)));
                int seedIndex = random.Next(seeds.Count);
                var (name, messages) = seeds[seedIndex];
                long budget = baselines[seedIndex] + AllocationMargin;
                // The raised-length mutants draw from their own generator, so the other mutants stay what they were.
                var raise = new Random(unchecked((int)(options.Seed * 40503UL) ^ (int)index ^ (int)(index >> 32)));
                List<byte[]> payloads = Mutate(messages, random, raise, out string what);
                Task<CheckResult> check = Task.Run(() => Check(payloads, deserializer, settings));
                string? problem = null;
                try
                {
                    if (!check.Wait(s_budget))
                        problem = $"no result within {s_budget.TotalSeconds} s (a hang?)";
                    else if (check.Result.Rejected)
                        Interlocked.Increment(ref rejected);
                    else
                        Interlocked.Increment(ref accepted);
                    if (problem is null && check.Result.Compared)
                        Interlocked.Increment(ref compared);
                    if (problem is null && check.Result.Arbitrated)
                        Interlocked.Increment(ref arbitrated);
                    if (problem is null)
                    {
                        if (check.Result.OverLimit)
                            Interlocked.Increment(ref overLimit);
                        if (what.Contains("raised", StringComparison.Ordinal))
                            Interlocked.Increment(ref raised);
                        long seen;
                        while ((seen = Interlocked.Read(ref largest)) < check.Result.Allocated && Interlocked.CompareExchange(ref largest, check.Result.Allocated, seen) != seen)
                        {
                        }
                        // A length declared past the limit is refused before its body is allocated: the seed's cost, no more.
                        if (what.Contains("past the limit", StringComparison.Ordinal))
                            budget = baselines[seedIndex] + (1 << 20);
                        if (check.Result.Allocated > budget)
                            problem = $"{check.Result.Allocated:N0} bytes allocated, over the {budget:N0}-byte budget (the unmutated seed allocates {baselines[seedIndex]:N0})";
                        else if (what.Contains("raised", StringComparison.Ordinal) && what.Contains("past the limit", StringComparison.Ordinal) && !check.Result.Rejected)
                            problem = "a buffer declaring more than the receive limit was read";
                    }
                    if (problem is null && Volatile.Read(ref s_wedged) == 0)
                        problem = ReadOverGrpc(client, payloads, check.Result.ClientRefused, check.Result.ClientOverLimit);
                }
                catch (AggregateException e)
                {
                    problem = e.InnerException!.ToString();
                }
                if (problem is not null)
                {
                    Interlocked.Increment(ref failures);
                    findings.Enqueue($"mutant {index} ({name}, {what}): {problem}");
                }
            });
            long left = open.SettledAsync(s_settle).GetAwaiter().GetResult();
            if (left != 0)
            {
                Interlocked.Increment(ref failures);
                findings.Enqueue($"{left} call(s) still open on the server {s_settle.TotalSeconds} s after the last read");
            }
            channel.Dispose();
            host.DisposeAsync().AsTask().GetAwaiter().GetResult();
            foreach (string finding in findings.Take(20))
                Console.WriteLine(finding);
            Console.WriteLine($"fuzz --flight: {count} mutants, {rejected} refused ({overLimit} over the {ReceiveLimit:N0}-byte receive limit), {accepted} read ({compared} compared with Apache.Arrow.Compression, {arbitrated} of them read otherwise by it and as the package reads them by liblz4), {raised} with a raised declared length; largest allocation {largest:N0} bytes (budget: the seed's plus {AllocationMargin:N0}, plus 1 MiB for a length declared past the limit); {failures} failure(s)");
            return failures == 0 ? 0 : 1;
        }

        /// <summary>
        /// Reads the mutated stream both ways; throws on a finding. Returns too what the two decodes allocated on this
        /// thread (protobuf's parse and the decoded bodies; not the comparison with the official reader).
        /// </summary>
        private static CheckResult Check(List<byte[]> payloads, FlightDataDeserializer deserializer, FlightCodecSettings settings)
        {
            bool clientOverLimit = false, serverOverLimit = false;
            long before = GC.GetAllocatedBytesForCurrentThread();
            // The client: the response marshaller on the payload, then the call's checks, as the interceptor's reader does.
            List<IpcMessageBytes>? client = Read(payloads, payload =>
            {
                IMessage message = deserializer.Deserialize(new PayloadContext(payload));
                return message;
            }, new FlightStreamChecker("DoGet", decoder: null, settings), ref clientOverLimit);

            // The server: protobuf's parser (a payload it refuses never reaches the interceptor), then the upload decode.
            List<IpcMessageBytes>? server = null;
            bool parsed = true;
            var parsedMessages = new List<IMessage>();
            foreach (byte[] payload in payloads)
            {
                try
                {
                    parsedMessages.Add(s_descriptor.Parser.ParseFrom(payload));
                }
                catch (InvalidProtocolBufferException)
                {
                    parsed = false;
                    break;
                }
            }
            if (parsed)
            {
                int i = 0;
                server = Read(payloads, _ => parsedMessages[i++], new FlightStreamChecker("DoPut", settings.NewDecoder(), settings), ref serverOverLimit);
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (client is null || server is null)
                return new CheckResult(true, false, client is null, clientOverLimit, clientOverLimit || serverOverLimit, allocated);
            if (!Same(client, server))
                throw new InvalidOperationException("the client and server directions decoded the same stream differently");

            // Both accepted: the decoded stream must read as the official codec reads the mutated messages. A message
            // passed on as it came may declare a bodyLength its data_body does not hold (Flight's reader takes the
            // data_body and ignores it): such messages make no IPC stream, and there is nothing to compare.
            byte[]? decodedStream = TryJoin(client), mutatedStream = TryJoin(payloads.Select(Fields));
            List<RecordBatch>? ours = decodedStream is null ? null : TryRead(decodedStream, null);
            List<RecordBatch>? official = mutatedStream is null ? null : TryRead(mutatedStream, new Apache.Arrow.Compression.CompressionCodecFactory());
            bool compared = ours is not null && official is not null;
            bool arbitrated = false;
            if (compared && !SameBatches(official!, ours!))
            {
                // Apache.Arrow.Compression's LZ4 decoder reads some corrupt frames otherwise than liblz4; liblz4 decides.
                List<RecordBatch>? reference = TryRead(mutatedStream!, new Liblz4CodecFactory());
                bool agrees = reference is not null && SameBatches(reference, ours!);
                reference?.ForEach(b => b.Dispose());
                if (!agrees)
                    throw new InvalidOperationException("the decoded stream reads differently from Apache.Arrow.Compression and from liblz4 over the same messages");
                arbitrated = true;
            }
            foreach (List<RecordBatch>? list in new[] { ours, official })
                list?.ForEach(b => b.Dispose());
            return new CheckResult(false, compared, false, false, false, allocated, arbitrated);
        }

        /// <summary>
        /// Reads the mutant from the server through the interceptor, without disposing the call; a finding, or null. The
        /// in-process client direction (<paramref name="refused"/>) predicts it: our exception where that refused, a
        /// complete read where it did not, never gRPC's exception other than the package's own refusal at the receive
        /// limit (ResourceExhausted, naming the message), and that exactly where the in-process read was refused over it
        /// (<paramref name="overLimit"/>). Flight's own reader may fail first (a dictionary batch, or a mutant only it
        /// refuses): such a call is the owner's to end (docs/flight.md), so it is disposed here.
        /// </summary>
        private static string? ReadOverGrpc(FlightClient client, List<byte[]> payloads, bool refused, bool overLimit)
        {
            string ticket = RawFlightService.Register(payloads.Cast<byte[]?>().ToList());
            try
            {
                FlightRecordBatchStreamingCall call = client.GetStream(new FlightTicket(ticket));
                Task<int> read = CountAsync(call.ResponseStream);
                try
                {
                    if (!read.Wait(s_budget))
                    {
                        Interlocked.Exchange(ref s_wedged, 1);
                        return $"the read over gRPC did not end within {s_budget.TotalSeconds} s (calls left open?); no more reads over gRPC";
                    }
                    return refused ? "read over gRPC, refused in process" : null;
                }
                catch (AggregateException e)
                {
                    Exception inner = e.InnerException!;
                    // The interceptor refuses a message over its receive limit as gRPC refuses one over its own.
                    if (inner is RpcException limit && limit.StatusCode == StatusCode.ResourceExhausted && limit.Status.Detail.StartsWith("FlightData message ", StringComparison.Ordinal))
                        return overLimit ? null : "refused at the receive limit over gRPC, not in process: " + inner;
                    if (inner is RpcException)
                        return "the read over gRPC failed with gRPC's exception, not the package's: " + inner;
                    // Ours name the message (FlightStreamChecker); Arrow's reader throws InvalidDataException too.
                    if ((inner is InvalidDataException || inner is NotSupportedException) && inner.Message.StartsWith("FlightData message ", StringComparison.Ordinal))
                        return refused && !overLimit ? null : $"refused over gRPC, {(refused ? "refused at the receive limit" : "read")} in process: " + inner;
                    call.Dispose();
                    return null;
                }
            }
            finally
            {
                RawFlightService.Streams.TryRemove(ticket, out _);
            }
        }

        private static async Task<int> CountAsync(FlightClientRecordBatchStreamReader stream)
        {
            int count = 0;
            await foreach (RecordBatch batch in stream)
            {
                batch.Dispose();
                count++;
            }
            return count;
        }

        /// <summary>What <see cref="Check"/> found of one mutant.</summary>
        /// <param name="Rejected">A direction refused the stream.</param>
        /// <param name="Compared">Both read it, and so did the official reader, alike.</param>
        /// <param name="ClientRefused">The client direction refused it, as the read over gRPC must.</param>
        /// <param name="ClientOverLimit">The client direction refused it at the receive limit.</param>
        /// <param name="OverLimit">A direction refused it at the receive limit.</param>
        /// <param name="Allocated">What the two decodes allocated on this thread.</param>
        /// <param name="Arbitrated">Apache.Arrow.Compression read it otherwise, and liblz4 as the package did.</param>
        private readonly record struct CheckResult(bool Rejected, bool Compared, bool ClientRefused, bool ClientOverLimit, bool OverLimit, long Allocated, bool Arbitrated = false);

        /// <summary>The decoded messages, or null when a message was refused as it may be (malformed, or over the receive limit).</summary>
        private static List<IpcMessageBytes>? Read(List<byte[]> payloads, Func<byte[], IMessage> next, FlightStreamChecker checker, ref bool overLimit)
        {
            var decoded = new List<IpcMessageBytes>();
            try
            {
                foreach (byte[] payload in payloads)
                {
                    IMessage message = next(payload);
                    checker.Next(message);
                    decoded.Add(Fields(message));
                }
                return decoded;
            }
            catch (InvalidDataException e) when (e.InnerException is null || e.InnerException is Lz4FrameException || e.InnerException is InvalidDataException || e.InnerException is InvalidProtocolBufferException)
            {
                return null;
            }
            catch (NotSupportedException)
            {
                return null;
            }
            catch (Grpc.Core.RpcException e) when (e.StatusCode == Grpc.Core.StatusCode.ResourceExhausted)
            {
                overLimit = true;
                return null;
            }
            finally
            {
                checker.Release();
            }
        }

        private static IpcMessageBytes Fields(byte[] payload) => Fields(s_descriptor.Parser.ParseFrom(payload));

        private static IpcMessageBytes Fields(IMessage message) =>
            new IpcMessageBytes(((ByteString)s_descriptor.FindFieldByNumber(2).Accessor.GetValue(message)).ToByteArray(),
                ((ByteString)s_descriptor.FindFieldByNumber(1000).Accessor.GetValue(message)).ToByteArray());

        private static bool Same(List<IpcMessageBytes> a, List<IpcMessageBytes> b) =>
            a.Count == b.Count && a.Zip(b).All(p => p.First.Header.AsSpan().SequenceEqual(p.Second.Header) && p.First.Body.AsSpan().SequenceEqual(p.Second.Body));

        /// <summary>The messages as one IPC stream, or null when a message declares a body its data_body does not hold.</summary>
        private static byte[]? TryJoin(IEnumerable<IpcMessageBytes> messages)
        {
            List<IpcMessageBytes> list = messages.ToList();
            try
            {
                foreach (IpcMessageBytes message in list)
                {
                    long declared = message.Header.Length == 0 ? 0 : IpcMessages.BodyLength(message.Header);
                    if (declared < 0 || declared > message.Body.Length)
                        return null;
                }
            }
            catch (ArgumentOutOfRangeException)
            {
                // A header the hand-written walk cannot follow: Flight's reader parses it, an IPC stream cannot be made.
                return null;
            }
            return IpcMessages.Join(list);
        }

        private static List<RecordBatch>? TryRead(byte[] stream, ICompressionCodecFactory? factory)
        {
            var batches = new List<RecordBatch>();
            try
            {
                using var reader = new ArrowStreamReader(new MemoryStream(stream), factory!);
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batches.Add(batch);
                return batches;
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                // What Arrow's reader does with a mutant it cannot read is not ours to judge; only agreement is.
                batches.ForEach(b => b.Dispose());
                return null;
            }
        }

        private static bool SameBatches(List<RecordBatch> expected, List<RecordBatch> actual)
        {
            if (expected.Count != actual.Count)
                return false;
            for (int b = 0; b < expected.Count; b++)
            {
                if (expected[b].Length != actual[b].Length || expected[b].ColumnCount != actual[b].ColumnCount)
                    return false;
                for (int c = 0; c < expected[b].ColumnCount; c++)
                {
                    if (!SameData(expected[b].Column(c).Data, actual[b].Column(c).Data))
                        return false;
                }
            }
            return true;
        }

        private static bool SameData(ArrayData e, ArrayData a)
        {
            ArrayData[] ec = e.Children ?? System.Array.Empty<ArrayData>(), ac = a.Children ?? System.Array.Empty<ArrayData>();
            if (e.Length != a.Length || e.NullCount != a.NullCount || e.Buffers.Length != a.Buffers.Length || ec.Length != ac.Length)
                return false;
            for (int i = 0; i < e.Buffers.Length; i++)
            {
                if (!e.Buffers[i].Span.SequenceEqual(a.Buffers[i].Span))
                    return false;
            }
            for (int i = 0; i < ec.Length; i++)
            {
                if (!SameData(ec[i], ac[i]))
                    return false;
            }
            return (e.Dictionary is null) == (a.Dictionary is null) && (e.Dictionary is null || SameData(e.Dictionary, a.Dictionary!));
        }

        /// <summary>The stream's messages as FlightData payloads, one of them mutated in its header, its body or its protobuf bytes.</summary>
        private static List<byte[]> Mutate(List<IpcMessageBytes> messages, Random random, Random raise, out string what)
        {
            int target = messages.Count > 1 ? 1 + random.Next(messages.Count - 1) : 0;
            var payloads = new List<byte[]>();
            what = "";
            for (int i = 0; i < messages.Count; i++)
            {
                byte[] header = messages[i].Header, body = messages[i].Body;
                if (i != target)
                {
                    payloads.Add(IpcMessages.FlightData(header, body));
                    continue;
                }
                int kind = -1;
                if (raise.Next(4) == 0 && RaiseDeclaredLength(body, raise, out byte[] raised, out string how))
                {
                    what = $"message {i} data_body: {how}";
                    payloads.Add(IpcMessages.FlightData(header, raised));
                }
                else if ((kind = random.Next(3)) == 0 && header.Length > 0)
                {
                    header = (byte[])header.Clone();
                    what = $"message {i} data_header: {Flip(header, random)}";
                    payloads.Add(IpcMessages.FlightData(header, body));
                }
                else if (kind == 1 && body.Length > 0)
                {
                    body = (byte[])body.Clone();
                    what = $"message {i} data_body: {Flip(body, random)}";
                    payloads.Add(IpcMessages.FlightData(header, body));
                }
                else
                {
                    byte[] payload = IpcMessages.FlightData(header, body);
                    if (random.Next(2) == 0 && payload.Length > 1)
                    {
                        int cut = random.Next(payload.Length);
                        what = $"message {i} protobuf truncated to {cut} bytes";
                        payload = payload.AsSpan(0, cut).ToArray();
                    }
                    else
                    {
                        what = $"message {i} protobuf: {Flip(payload, random)}";
                    }
                    payloads.Add(payload);
                }
            }
            return payloads;
        }

        /// <summary>
        /// Raises the uncompressed-length prefix of one LZ4-compressed buffer (an 8-aligned prefix before a frame's magic
        /// number), the one with the largest frame half the time: to what its frame could at most decode to (which the
        /// ratio check lets through, so only the receive limit stops it), just past that, or past the limit.
        /// </summary>
        private static bool RaiseDeclaredLength(byte[] body, Random random, out byte[] raised, out string how)
        {
            var prefixes = new List<(int At, long Frame)>();
            for (int at = 0; at + 12 <= body.Length; at += 8)
            {
                if (BitConverter.ToUInt32(body, at + 8) == 0x184D2204 && BitConverter.ToInt64(body, at) > 0)
                    prefixes.Add((at, 0));
            }
            raised = body;
            how = "";
            if (prefixes.Count == 0)
                return false;
            for (int p = 0; p < prefixes.Count; p++)
            {
                // The frame runs to the next prefix, or to the end of the body: near enough for a bound.
                int end = p + 1 < prefixes.Count ? prefixes[p + 1].At : body.Length;
                prefixes[p] = (prefixes[p].At, end - prefixes[p].At - 8);
            }
            var (prefix, frame) = random.Next(2) == 0 ? prefixes.OrderByDescending(x => x.Frame).First() : prefixes[random.Next(prefixes.Count)];
            long[] values = { 255 * frame, 255 * frame, (255 * frame) + 1, ReceiveLimit + 1L, int.MaxValue };
            long value = values[random.Next(values.Length)];
            raised = (byte[])body.Clone();
            BitConverter.GetBytes(value).CopyTo(raised, prefix);
            how = $"declared length at {prefix} raised to {value}{(value > ReceiveLimit ? " (past the limit)" : "")}";
            return true;
        }

        private static string Flip(byte[] bytes, Random random)
        {
            int n = 1 + random.Next(4);
            var where = new List<string>();
            for (int j = 0; j < n; j++)
            {
                int at = random.Next(bytes.Length);
                switch (random.Next(3))
                {
                    case 0:
                        bytes[at] ^= (byte)(1 << random.Next(8));
                        break;
                    case 1:
                        bytes[at] = (byte)random.Next(256);
                        break;
                    default:
                        // An interesting value where lengths and offsets live.
                        long[] values = { 0, -1, 1, 255, 1L << 31, long.MaxValue, 1L << 40 };
                        int width = Math.Min(8, bytes.Length - at);
                        BitConverter.GetBytes(values[random.Next(values.Length)]).AsSpan(0, width).CopyTo(bytes.AsSpan(at));
                        break;
                }
                where.Add(at.ToString(System.Globalization.CultureInfo.InvariantCulture));
            }
            return "bytes at " + string.Join(", ", where);
        }
    }
}
