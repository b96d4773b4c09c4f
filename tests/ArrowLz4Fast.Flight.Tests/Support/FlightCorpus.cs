using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using ArrowLz4Fast.Tests.Support;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>The corpus IPC streams as Flight sends them, and Flight's internal FlightData type, reached by reflection.</summary>
    internal static class FlightCorpus
    {
        /// <summary>Every IPC stream of the committed corpus and, when present, of ../shared/corpus (relative path, full path).</summary>
        public static IEnumerable<string> Streams()
        {
            IEnumerable<string> committed = Corpus.CommittedIpcFiles().Where(p => p.EndsWith(".arrows", StringComparison.Ordinal)).Select(Corpus.Committed);
            IEnumerable<string> shared = Corpus.SharedAvailable
                ? Directory.EnumerateFiles(Path.Combine(Corpus.SharedDir, "ipc"), "*.arrows", SearchOption.AllDirectories)
                : Enumerable.Empty<string>();
            return committed.Concat(shared).OrderBy(p => p, StringComparer.Ordinal);
        }

        /// <summary>Test data names relative to a corpus root, for theory data.</summary>
        public static IEnumerable<object[]> StreamData() => Streams().Select(p => new object[] { Name(p) });

        public static string Name(string path) =>
            path.StartsWith(Corpus.SharedDir, StringComparison.Ordinal) ? "shared:" + Path.GetRelativePath(Corpus.SharedDir, path) : Path.GetRelativePath(Corpus.CommittedDir, path);

        public static string PathOf(string name) =>
            name.StartsWith("shared:", StringComparison.Ordinal) ? Corpus.Shared(name.Substring(7)) : Corpus.Committed(name);

        /// <summary>Whether the stream has dictionary batches, which Flight 23's reader does not read (it throws NotImplementedException).</summary>
        public static bool HasDictionaries(string path) => Path.GetFileName(path).StartsWith("nested_dict", StringComparison.Ordinal);

        /// <summary>The stream's messages as serialized FlightData, as a Flight server sends them.</summary>
        public static List<byte[]?> Payloads(string path) =>
            IpcMessages.Split(File.ReadAllBytes(path)).Select(m => (byte[]?)IpcMessages.FlightData(m.Header, m.Body)).ToList();

        public static readonly Type FlightDataType = typeof(Apache.Arrow.Flight.Client.FlightClient).Assembly.GetType("Apache.Arrow.Flight.Protocol.FlightData", throwOnError: true)!;

        public static readonly MessageDescriptor Descriptor =
            (MessageDescriptor)FlightDataType.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!;

        public static IMessage Parse(byte[] payload) => Descriptor.Parser.ParseFrom(payload);

        public static (byte[] Header, byte[] Body) Fields(IMessage message)
        {
            var header = (ByteString)Descriptor.FindFieldByNumber(2).Accessor.GetValue(message);
            var body = (ByteString)Descriptor.FindFieldByNumber(1000).Accessor.GetValue(message);
            return (header.ToByteArray(), body.ToByteArray());
        }
    }
}
