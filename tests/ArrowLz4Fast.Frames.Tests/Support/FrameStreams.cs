using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>What a decode produced: the bytes, or the exception it ended with (and the bytes before it).</summary>
    internal sealed record FrameOutcome(byte[] Output, Exception? Error);

    /// <summary>Decodes frames through the span decoder (the reference) and through <see cref="Lz4FrameStream"/>, read in seeded random sizes.</summary>
    internal static class FrameStreams
    {
        public const int MaxRead = 8 << 20;

        /// <summary>
        /// The files of the per-file sweeps: all of them, and in the netstandard2.0 suite every third. That build's own
        /// code (the inner stream read through the array overloads, helpers queued through WaitCallback) runs the same
        /// whatever the frame; the frame decoding under it has none, and the net8.0 suite sweeps every file.
        /// </summary>
        public static IEnumerable<string> SuiteFrameFiles() =>
#if NETSTANDARD_SUITE
            AllFrameFiles().Where((_, i) => i % 3 == 0);
#else
            AllFrameFiles();
#endif

        /// <summary>Every LZ4 data file (with a sidecar) of the frame folders of both corpora, by absolute path.</summary>
        public static IEnumerable<string> AllFrameFiles()
        {
            var roots = new List<string> { Corpus.CommittedDir };
            if (Directory.Exists(Path.Combine(Corpus.SharedDir, "frames")))
                roots.Add(Corpus.SharedDir);
            foreach (string root in roots)
            {
                foreach (string folder in new[] { "frames", "malformed", "liblz4-agreement" })
                {
                    string dir = Path.Combine(root, folder);
                    if (!Directory.Exists(dir))
                        continue;
                    foreach (string sidecar in Directory.EnumerateFiles(dir, "*.expected.json", SearchOption.AllDirectories).OrderBy(p => p, StringComparer.Ordinal))
                    {
                        string data = sidecar.Substring(0, sidecar.Length - ".expected.json".Length);
                        if (!File.Exists(data))
                            continue;
                        // The shared corpus repeats the committed one; only what differs is worth reading twice.
                        string committed = Path.Combine(Corpus.CommittedDir, Path.GetRelativePath(root, data));
                        if (root != Corpus.CommittedDir && File.Exists(committed) && File.ReadAllBytes(committed).AsSpan().SequenceEqual(File.ReadAllBytes(data)))
                            continue;
                        yield return data;
                    }
                }
            }
        }

        /// <summary>The span decoder on the whole input, with a destination grown until it fits.</summary>
        public static FrameOutcome Reference(byte[] frames, Lz4FrameDecoderOptions options = default)
        {
            int size = Math.Max(1 << 20, frames.Length * 8);
            while (true)
            {
                var destination = new byte[size];
                try
                {
                    Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(frames, destination, out _, out int written, options);
                    if (status == Lz4FrameDecodeStatus.DestinationTooSmall)
                    {
                        Assert.True(size < (1 << 30), "the span decoder wants more than 1 GiB");
                        size *= 2;
                        continue;
                    }
                    if (status == Lz4FrameDecodeStatus.DictionaryRequired)
                        return new FrameOutcome(destination.AsSpan(0, written).ToArray(), new NotSupportedException("dictionary"));
                    return new FrameOutcome(destination.AsSpan(0, written).ToArray(), null);
                }
                catch (InvalidDataException e)
                {
                    return new FrameOutcome(Array.Empty<byte>(), e);
                }
            }
        }

        /// <summary>Reads <paramref name="stream"/> to its end (or its exception) with seeded random read sizes from 1 byte to 8 MiB and some zero-length reads.</summary>
        public static FrameOutcome ReadAll(Stream stream, int seed, bool async, int maxRead = MaxRead)
        {
            var random = new Random(seed);
            var output = new MemoryStream();
            byte[] buffer = new byte[maxRead + 16];
            try
            {
                while (true)
                {
                    if (random.Next(20) == 0)
                    {
                        int zero = async ? stream.ReadAsync(buffer.AsMemory(3, 0)).AsTask().GetAwaiter().GetResult() : stream.Read(buffer, 3, 0);
                        Assert.Equal(0, zero);
                    }
                    int size = RandomSize(random, maxRead);
                    int offset = random.Next(16);
                    int n = async
                        ? stream.ReadAsync(buffer.AsMemory(offset, size)).AsTask().GetAwaiter().GetResult()
                        : random.Next(2) == 0 ? stream.Read(buffer, offset, size) : stream.Read(buffer.AsSpan(offset, size));
                    Assert.InRange(n, 0, size);
                    if (n == 0)
                    {
                        Assert.Equal(0, stream.Read(buffer, 0, 10));
                        return new FrameOutcome(output.ToArray(), null);
                    }
                    output.Write(buffer, offset, n);
                }
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException)
            {
                return new FrameOutcome(output.ToArray(), e);
            }
        }

        /// <summary>Log-uniform from 1 to <paramref name="max"/>, so small and large reads are both common.</summary>
        public static int RandomSize(Random random, int max) =>
            Math.Clamp((int)Math.Exp(random.NextDouble() * Math.Log(max)), 1, max);

        /// <summary>
        /// Asserts the stream outcome is the reference's: the same bytes, or the same exception (type, message,
        /// offset) after a prefix of the reference's bytes.
        /// </summary>
        public static void AssertSame(FrameOutcome expected, FrameOutcome actual, string what)
        {
            if (expected.Error is null)
            {
                Assert.True(actual.Error is null, $"{what}: the stream threw {actual.Error}");
                Assert.True(expected.Output.AsSpan().SequenceEqual(actual.Output), $"{what}: {actual.Output.Length} bytes, expected {expected.Output.Length}, or different bytes");
                return;
            }
            Assert.True(actual.Error != null, $"{what}: the stream decoded {actual.Output.Length} bytes where the span decoder threw {expected.Error.Message}");
            Assert.Equal(expected.Error.GetType(), actual.Error!.GetType());
            if (expected.Error is InvalidDataException)
            {
                Assert.Equal(expected.Error.Message, actual.Error.Message);
                Assert.Equal(FrameErrors.Of(expected.Error).Offset, FrameErrors.Of(actual.Error).Offset);
            }
            else
            {
                // The span decoder reports a dictionary frame by status after the output before it.
                Assert.True(expected.Output.AsSpan().SequenceEqual(actual.Output), $"{what}: different bytes before the dictionary frame");
            }
        }
    }
}
