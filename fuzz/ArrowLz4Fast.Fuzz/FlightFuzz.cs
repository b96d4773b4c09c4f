using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Flight;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Frames;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// --flight: mutants of the corpus streams' messages as FlightData (data_header, data_body, or the protobuf bytes
    /// themselves), decoded in both directions the interceptors decode: the client's response marshaller over the gRPC
    /// payload with the per-call checks, and the server's upload decode after protobuf's parser. Only
    /// InvalidDataException (with its Lz4FrameException when it has an offset) and NotSupportedException may come out,
    /// each mutant within a time budget; when both directions accept a stream, they must agree with each other and,
    /// where it reads the mutant too, with ArrowStreamReader and Apache.Arrow.Compression over the same messages.
    /// </summary>
    internal static class FlightFuzz
    {
        private static readonly TimeSpan s_budget = TimeSpan.FromSeconds(20);

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

            var settings = new FlightCodecSettings(null, new Apache.Arrow.Compression.CompressionCodecFactory(), IpcDecompressingStream.DefaultMaxBodyLength, 0);
            var deserializer = new FlightDataDeserializer(FlightDataFields.Of(s_descriptor), settings);
            long first = options.Index ?? options.Start;
            long count = options.Index.HasValue ? 1 : options.Count;
            int failures = 0, rejected = 0, accepted = 0, compared = 0;
            var findings = new ConcurrentQueue<string>();
            Parallel.For(0, count, new ParallelOptions { MaxDegreeOfParallelism = options.Threads }, k =>
            {
                long index = first + k;
                var random = new Random(unchecked((int)(options.Seed * 2654435761UL) ^ (int)index ^ (int)(index >> 32)));
                var (name, messages) = seeds[random.Next(seeds.Count)];
                List<byte[]> payloads = Mutate(messages, random, out string what);
                Task<(bool Rejected, bool Compared)> check = Task.Run(() => Check(payloads, deserializer, settings));
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
            foreach (string finding in findings.Take(20))
                Console.WriteLine(finding);
            Console.WriteLine($"fuzz --flight: {count} mutants, {rejected} refused, {accepted} read ({compared} compared with Apache.Arrow.Compression), {failures} failure(s)");
            return failures == 0 ? 0 : 1;
        }

        /// <summary>Reads the mutated stream both ways; throws on a finding.</summary>
        private static (bool Rejected, bool Compared) Check(List<byte[]> payloads, FlightDataDeserializer deserializer, FlightCodecSettings settings)
        {
            // The client: the response marshaller on the payload, then the call's checks, as the interceptor's reader does.
            List<IpcMessageBytes>? client = Read(payloads, payload =>
            {
                IMessage message = deserializer.Deserialize(new PayloadContext(payload));
                return message;
            }, new FlightStreamChecker("DoGet", decoder: null));

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
                server = Read(payloads, _ => parsedMessages[i++], new FlightStreamChecker("DoPut", settings.NewDecoder()));
            }

            if (client is null || server is null)
                return (true, false);
            if (!Same(client, server))
                throw new InvalidOperationException("the client and server directions decoded the same stream differently");

            // Both accepted: the decoded stream must read as the official codec reads the mutated messages.
            List<RecordBatch>? ours = TryRead(IpcMessages.Join(client), null);
            List<RecordBatch>? official = TryRead(IpcMessages.Join(payloads.Select(Fields)), new Apache.Arrow.Compression.CompressionCodecFactory());
            bool compared = ours is not null && official is not null;
            if (compared && !SameBatches(official!, ours!))
                throw new InvalidOperationException("the decoded stream reads differently from Apache.Arrow.Compression over the same messages");
            foreach (List<RecordBatch>? list in new[] { ours, official })
                list?.ForEach(b => b.Dispose());
            return (false, compared);
        }

        /// <summary>The decoded messages, or null when a message was refused as it may be.</summary>
        private static List<IpcMessageBytes>? Read(List<byte[]> payloads, Func<byte[], IMessage> next, FlightStreamChecker checker)
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
        private static List<byte[]> Mutate(List<IpcMessageBytes> messages, Random random, out string what)
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
                int kind = random.Next(3);
                if (kind == 0 && header.Length > 0)
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
