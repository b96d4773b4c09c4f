using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameStream"/> in compress mode: for the same options and content it writes the span encoder's
    /// frame, whatever the write sizes; what it writes (flushed or not) decodes with liblz4 and K4os; and its
    /// lifecycle (Dispose, leaveOpen, errors) and allocation.
    /// </summary>
    public class FrameStreamWriteTests
    {
        private const int MiB = 1024 * 1024;

        // Pairwise over block size, level, checksums and parallelism.
        private static readonly Dictionary<string, Lz4FrameEncoderOptions> Options = new()
        {
            ["64K"] = new(blockSize: 64 * 1024),
            ["256K-content"] = new(blockSize: 256 * 1024, contentChecksum: true),
            ["1M-both-par2"] = new(blockSize: MiB, contentChecksum: true, blockChecksum: true, parallelism: new Lz4Parallelism(2, 1)),
            ["4M-content-par2"] = new(blockSize: 4 * MiB, contentChecksum: true, parallelism: new Lz4Parallelism(2)),
            ["4M-block"] = new(blockSize: 4 * MiB, blockChecksum: true),
            ["64K-L2-both-all"] = new(blockSize: 64 * 1024, level: 2, contentChecksum: true, blockChecksum: true, parallelism: Lz4Parallelism.AllCores),
            ["64K-L9-block-par2"] = new(blockSize: 64 * 1024, level: 9, blockChecksum: true, parallelism: new Lz4Parallelism(2, 1)),
            ["256K-L12-content"] = new(blockSize: 256 * 1024, level: 12, contentChecksum: true),
        };

        private static readonly string[] CommittedFiles =
        {
            "ipc/pyarrow/strings.arrows",
            "ipc/pyarrow/incompressible.arrows",
            "ipc/java/nested_dict.arrows",
            "ipc/rust/wide.arrows",
        };

        private static readonly string[] SharedFiles =
        {
            "ipc/pyarrow/numeric.arrows",
            "ipc/java/numeric.arrows",
        };

        // Each setting on half the files in turn (every file still meets half the settings, every setting two committed
        // files and one shared): the write patterns, not the settings, are what these cases vary.
        public static IEnumerable<object[]> CommittedCases() => Alternate(CommittedFiles);

        public static IEnumerable<object[]> SharedCases() => Alternate(SharedFiles);

        private static IEnumerable<object[]> Alternate(string[] files) =>
            from f in Enumerable.Range(0, files.Length)
            from o in Enumerable.Range(0, Options.Count)
            where (f + o) % 2 == 0
            select new object[] { files[f], Options.Keys.ElementAt(o) };

        // The write patterns are the stream's; the encoder settings only change the bytes it must match. So half the
        // cells, every setting on every second content in turn, each size at a block boundary with the settings of
        // that block size, and the empty and one-byte contents with every setting.
        private static readonly string[] SyntheticNames = { "text", "zeros", "random", "mixed", "empty", "one", "exactly-256K", "256K+1", "exactly-4M", "1M-1" };

        public static IEnumerable<object[]> SyntheticCases() =>
            from d in Enumerable.Range(0, SyntheticNames.Length)
            from o in Enumerable.Range(0, Options.Count)
            let data = SyntheticNames[d]
            let option = Options.Keys.ElementAt(o)
            where (d + o) % 2 == 0 || data is "empty" or "one" || AtBoundary(data, option)
            select new object[] { data, option };

        private static bool AtBoundary(string data, string option) =>
            (data.StartsWith("256K", StringComparison.Ordinal) || data == "exactly-256K") ? option.StartsWith("256K", StringComparison.Ordinal)
            : data == "exactly-4M" ? option.StartsWith("4M", StringComparison.Ordinal)
            : data == "1M-1" && option.StartsWith("1M", StringComparison.Ordinal);

        [Theory]
        [MemberData(nameof(CommittedCases))]
        public Task Committed_ipc_streams_give_the_span_encoders_bytes_for_every_write_pattern(string file, string option) =>
            CheckEveryPattern(File.ReadAllBytes(Corpus.Committed(file)), Options[option]);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedCases))]
        public Task Shared_ipc_streams_give_the_span_encoders_bytes_for_every_write_pattern(string file, string option) =>
            CheckEveryPattern(File.ReadAllBytes(Corpus.Shared(file)), Options[option]);

        [Theory]
        [MemberData(nameof(SyntheticCases))]
        public Task Synthetic_content_gives_the_span_encoders_bytes_for_every_write_pattern(string data, string option) =>
            CheckEveryPattern(Synthetic(data), Options[option]);

        internal static byte[] Synthetic(string name)
        {
            switch (name)
            {
                case "text":
                {
                    var words = new[] { "arrow ", "record ", "batch ", "lz4 ", "frame ", "stream ", "column ", "the ", "of " };
                    var random = new Random(26);
                    var text = new System.Text.StringBuilder();
                    while (text.Length < 3 * MiB + 777)
                        text.Append(words[random.Next(words.Length)]);
                    return System.Text.Encoding.ASCII.GetBytes(text.ToString());
                }
                case "zeros":
                    return new byte[5 * MiB + 3];
                case "random":
                {
                    var data = new byte[3 * MiB + 1];
                    new Random(27).NextBytes(data);
                    return data;
                }
                case "mixed":
                    return TestData.Mixed(6 * MiB + 12345, 28);
                case "empty":
                    return Array.Empty<byte>();
                case "one":
                    return new byte[] { 42 };
                case "exactly-256K":
                    return TestData.Mixed(256 * 1024, 29);
                case "256K+1":
                    return TestData.Mixed(256 * 1024 + 1, 30);
                case "exactly-4M":
                    return TestData.Mixed(4 * MiB, 31);
                case "1M-1":
                    return TestData.Mixed(MiB - 1, 32);
                default:
                    throw new ArgumentException(name);
            }
        }

        internal static byte[] SpanEncode(ReadOnlySpan<byte> content, Lz4FrameEncoderOptions options)
        {
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(content.Length, options)];
            Assert.True(Lz4FrameEncoder.TryEncode(content, frame, out int written, options));
            return frame.AsSpan(0, written).ToArray();
        }

        /// <summary>Write sizes, cycled until the content is written: fixed sizes, or seeded random ones.</summary>
        private static IEnumerable<(string Name, Func<int, int> Next)> Patterns(int blockSize, int contentLength)
        {
            // One-byte writes of many megabytes take long: that pattern covers the first 1.5 MiB (several blocks).
            if (contentLength <= 3 * MiB / 2)
                yield return ("1", _ => 1);
            yield return ("7", _ => 7);
            yield return ("4095", _ => 4095);
            yield return ("81920", _ => 81920);
            yield return ("block-1", _ => blockSize - 1);
            yield return ("block", _ => blockSize);
            yield return ("block+1", _ => blockSize + 1);
            yield return ("2-blocks", _ => 2 * blockSize);
            yield return ("single", _ => int.MaxValue);
            var random = new Random(blockSize ^ contentLength);
            // Log-uniform from 1 byte to 8 MiB: small writes and huge ones in one stream.
            yield return ("random-1..8M", _ => (int)Math.Exp(random.NextDouble() * Math.Log(8.0 * MiB)));
            var small = new Random(contentLength);
            yield return ("random-1..2-blocks", _ => small.Next(1, 2 * blockSize + 1));
        }

        private static async Task CheckEveryPattern(byte[] content, Lz4FrameEncoderOptions options)
        {
            // The HC levels compress slowly: a prefix of the content, still several blocks, is enough.
            int prefix = options.Level >= 10 ? 640 * 1024 : options.Level >= 3 ? 3 * MiB / 2 : int.MaxValue;
            if (content.Length > prefix)
                content = content.AsSpan(0, prefix).ToArray();
            byte[] expected = SpanEncode(content, options);
            // Fixed patterns alternate between sync and async writes (each is one path through the writer's steps);
            // the random patterns go through both.
            int index = 0;
            foreach ((string name, Func<int, int> next) in Patterns(options.BlockSize, content.Length))
            {
                bool both = name.StartsWith("random", StringComparison.Ordinal);
                if (both || index % 2 == 0)
                    Check(name, "sync", StreamEncode(content, options, next));
                if (both || index % 2 == 1)
                    Check(name, "async", await StreamEncodeAsync(content, options, next));
                index++;
            }

            void Check(string name, string mode, byte[] actual)
            {
                if (!expected.AsSpan().SequenceEqual(actual))
                    Assert.Fail($"pattern {name}, {mode}: {actual.Length} bytes differ from the span encoder's {expected.Length}");
            }
        }

        private static byte[] StreamEncode(byte[] content, Lz4FrameEncoderOptions options, Func<int, int> next)
        {
            var inner = new MemoryStream();
            using (var stream = new Lz4FrameStream(inner, options, leaveOpen: true))
            {
                int offset = 0;
                for (int i = 0; offset < content.Length; i++)
                {
                    int count = Math.Min(next(i), content.Length - offset);
                    // Alternate the span and array overloads.
                    if ((i & 1) == 0)
                        stream.Write(content.AsSpan(offset, count));
                    else
                        stream.Write(content, offset, count);
                    offset += count;
                }
            }
            return inner.ToArray();
        }

        private static async Task<byte[]> StreamEncodeAsync(byte[] content, Lz4FrameEncoderOptions options, Func<int, int> next)
        {
            var inner = new YieldingStream();
            await using (var stream = new Lz4FrameStream(inner, options, leaveOpen: true))
            {
                int offset = 0;
                for (int i = 0; offset < content.Length; i++)
                {
                    int count = Math.Min(next(i), content.Length - offset);
                    if ((i & 1) == 0)
                        await stream.WriteAsync(content.AsMemory(offset, count), CancellationToken.None);
                    else
#pragma warning disable CA1835 // the array overload is the one under test here
                        await stream.WriteAsync(content, offset, count);
#pragma warning restore CA1835
                    offset += count;
                }
            }
            return inner.ToArray();
        }

        /// <summary>A MemoryStream whose asynchronous writes complete asynchronously, as a file's or a socket's do.</summary>
        private sealed class YieldingStream : MemoryStream
        {
            public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
            {
                await Task.Yield();
                cancellationToken.ThrowIfCancellationRequested();
                Write(buffer.Span);
            }

            public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
                WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
        }
    }
}
