using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Flight;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Google.Protobuf;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// The read paths a schema-only mutant also takes in --ipc, beside the wrapper: <see cref="Lz4FramedArrow"/> over the
    /// mutant in one LZ4 frame, and the Flight client hook (the response marshaller and the call's checks) over its
    /// messages, each followed by Arrow's reader. The error contract holds for all of them: only InvalidDataException
    /// and NotSupportedException may come out, whoever throws. Each exception type seen is counted per path.
    /// </summary>
    internal static class SchemaPaths
    {
        private static readonly Lazy<(FlightDataDeserializer Deserializer, FlightDataFields Fields)> s_flight = new(() =>
        {
            var settings = new FlightCodecSettings(null, new Apache.Arrow.Compression.CompressionCodecFactory(), IpcDecompressingStream.DefaultMaxBodyLength, 0);
            FlightDataFields fields = FlightDataFields.Of(FlightFuzz.Descriptor);
            return (new FlightDataDeserializer(fields, settings), fields);
        });

        /// <summary>"path: type" (or "path: read") to the number of mutants that ended so.</summary>
        public static ConcurrentDictionary<string, int> Outcomes { get; } = new(StringComparer.Ordinal);

        /// <summary>Whether an exception is inside the error contract of the verified read paths.</summary>
        public static bool InContract(Exception e) => e is InvalidDataException || e is NotSupportedException;

        /// <summary>Counts how <paramref name="path"/> ended; a description of the exception when it broke the contract, else null.</summary>
        public static string? Record(string path, Exception? e)
        {
            Outcomes.AddOrUpdate($"{path}: {(e is null ? "read" : e.GetType().FullName)}", 1, (_, n) => n + 1);
            return e is null || InContract(e) ? null : $"{path}: {e.GetType().Name}: {e.Message} ({Where(e)})";
        }

        /// <summary>Reads the mutant through Lz4FramedArrow and through the Flight client hook; the first contract break, or null.</summary>
        public static string? Check(byte[] mutant, List<IpcMutator.Message> messages)
        {
            return Record("Lz4FramedArrow", Try(() => ReadFramed(mutant))) ?? Record("Flight client", Try(() => ReadFlight(mutant, messages)));
        }

        /// <summary>The innermost frames of the exception's stack, to tell findings apart.</summary>
        public static string Where(Exception e) =>
            string.Join(" < ", (e.StackTrace ?? "").Split('\n').Take(3).Select(f => f.Trim().Replace("at ", "", StringComparison.Ordinal).Split(" in ")[0]));

        private static Exception? Try(Action read)
        {
            try
            {
                read();
                return null;
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                return e;
            }
        }

        private static void ReadFramed(byte[] mutant)
        {
            var framed = new MemoryStream();
            using (var writer = new Lz4FrameStream(framed, System.IO.Compression.CompressionMode.Compress, leaveOpen: true))
                writer.Write(mutant, 0, mutant.Length);
            framed.Position = 0;
            using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(framed, SlabMemoryAllocator.Shared, compressionCodecFactory: new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory()));
            Drain(reader);
        }

        // The messages as the server sent them (a schema mutant leaves every message's place and length as they were),
        // through the response marshaller and the call's checks, then Arrow's reader over what they let through.
        private static void ReadFlight(byte[] mutant, List<IpcMutator.Message> messages)
        {
            (FlightDataDeserializer deserializer, FlightDataFields fields) = s_flight.Value;
            var checker = new FlightStreamChecker("DoGet", decoder: null);
            var decoded = new List<IpcMessageBytes>();
            try
            {
                foreach (IpcMutator.Message m in messages)
                {
                    byte[] header = mutant.AsSpan(m.Metadata, m.MetadataLength).ToArray();
                    byte[] body = mutant.AsSpan(m.Body, (int)Math.Min(m.BodyLength, mutant.Length - m.Body)).ToArray();
                    IMessage message = deserializer.Deserialize(new PayloadContext(IpcMessages.FlightData(header, body)));
                    checker.Next(message);
                    decoded.Add(new IpcMessageBytes(fields.Header(message).ToByteArray(), fields.Body(message).ToByteArray()));
                }
            }
            finally
            {
                checker.Release();
            }
            using var reader = new ArrowStreamReader(new MemoryStream(IpcMessages.Join(decoded)), SlabMemoryAllocator.Shared, leaveOpen: false);
            Drain(reader);
        }

        private static void Drain(ArrowStreamReader reader)
        {
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
                batch.Dispose();
        }

        /// <summary>The counts, one line per path and outcome.</summary>
        public static IEnumerable<string> Report() =>
            Outcomes.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"  {p.Key}: {p.Value}");
    }
}
