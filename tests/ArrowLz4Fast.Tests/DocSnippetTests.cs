using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.RegularExpressions;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Every C# snippet of README.md, docs/*.md and src/ArrowLz4Fast.Frames/README.md, compiled and run. Each test holds
    /// the snippet's code unchanged between the SNIPPET markers; edit both together.
    /// </summary>
    public class DocSnippetTests
    {
        private const int Rows = 20_000;

        // README.md, "Quick start": the complete example, using lines included, is samples/QuickStart/Program.cs character
        // for character, and it runs: writes, reads three ways and reports a corruption.
        [Fact]
        public void Readme_complete_example_is_the_quickstart_sample_and_runs()
        {
            string root = CorpusLocator.RepositoryRoot;
            string program = File.ReadAllText(Path.Combine(root, "samples", "QuickStart", "Program.cs")).Replace("\r\n", "\n");
            string readme = File.ReadAllText(Path.Combine(root, "README.md")).Replace("\r\n", "\n");
            Assert.Contains("```csharp\n" + program + "```\n", readme, StringComparison.Ordinal);

            var output = new StringWriter();
            TextWriter console = Console.Out;
            Console.SetOut(output);
            try
            {
                System.Reflection.Assembly.Load("QuickStart").EntryPoint!.Invoke(null, new object[] { System.Array.Empty<string>() });
            }
            finally
            {
                Console.SetOut(console);
            }
            string[] lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.Contains("read 1000000 rows", lines);
            Assert.Contains("read 1000000 rows in parallel", lines);
            Assert.Contains("read 1000000 rows from the LZ4 frame", lines);
            Assert.Contains(lines, line => line.StartsWith("corrupt at byte ", StringComparison.Ordinal) && (line.Contains("of the compressed input", StringComparison.Ordinal) || line.Contains("decompressed from the LZ4 frame", StringComparison.Ordinal)));
        }

        // docs/api.md, "Reading and writing".
        [Fact]
        public void Readme_read_and_write()
        {
            using RecordBatch expected = TestTables.Realistic(Rows, seed: 1);
            Schema schema = expected.Schema;
            (MemoryStream stream, MemoryStream fileStream) = Lz4Inputs(expected);
            var output = new MemoryStream();

            // SNIPPET
            var factory = new Lz4FastCodecFactory();                       // thread-safe; keep one

            using var reader = new ArrowStreamReader(stream, factory);      // IPC stream (pyarrow, Java, Rust, .NET, ...)
            using var file = new ArrowFileReader(fileStream, factory);      // IPC file

            var options = new IpcOptions                                    // writers
            {
                CompressionCodec = CompressionCodecType.Lz4Frame,
                CompressionCodecFactory = factory,
            };
            using var writer = new ArrowStreamWriter(output, schema, leaveOpen: false, options);
            // SNIPPET END

            AssertReadsBack(expected, reader.ReadNextRecordBatch());
            AssertReadsBack(expected, file.ReadNextRecordBatch());
            AssertWriterReadsBack(expected, writer, output, written => new ArrowStreamReader(written, factory));
        }

        // README.md, "Read and write" (the inner factory for ZSTD).
        [Fact]
        public void Readme_inner_factory_reads_zstd()
        {
            // SNIPPET
            var withZstd = new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory());
            // SNIPPET END

            using var reader = new ArrowStreamReader(File.OpenRead(Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows")), withZstd);
            using RecordBatch? batch = reader.ReadNextRecordBatch();
            Assert.NotNull(batch);
            Assert.True(batch!.Length > 0);
        }

        // docs/memory.md, the allocator snippet (README.md, "Read and write", names it in prose).
        [Fact]
        public void Readme_and_memory_doc_allocator()
        {
            using RecordBatch expected = TestTables.Realistic(Rows, seed: 2);
            Schema schema = expected.Schema;
            (MemoryStream stream, MemoryStream fileStream) = Lz4Inputs(expected);
            var output = new MemoryStream();
            var factory = new Lz4FastCodecFactory();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory };

            // SNIPPET
            var allocator = SlabMemoryAllocator.Shared;                    // or new SlabMemoryAllocator(options); thread-safe

            using var reader = new ArrowStreamReader(stream, allocator, factory, leaveOpen: false);
            using var file = new ArrowFileReader(fileStream, allocator, factory);
            var context = new ArrowContext(allocator, factory);             // ArrowStreamReader(context, stream), Flight
            using var writer = new ArrowStreamWriter(output, schema, leaveOpen: false, options, allocator);
            // SNIPPET END

            AssertReadsBack(expected, reader.ReadNextRecordBatch());
            AssertReadsBack(expected, file.ReadNextRecordBatch());
            using var viaContext = new ArrowStreamReader(context, new MemoryStream(stream.ToArray()));
            AssertReadsBack(expected, viaContext.ReadNextRecordBatch());
            AssertWriterReadsBack(expected, writer, output, written => new ArrowStreamReader(written, allocator, factory, leaveOpen: false));
        }

        // The codec's parallel options with their defaults (README.md points to docs/parallel.md, whose snippet is below).
        [Fact]
        public void Readme_parallel_options()
        {
            // SNIPPET
            var parallelFactory = new Lz4FastCodecFactory(new Lz4FastOptions
            {
                MaxDegreeOfParallelism = -1,        // default: every core; 1 = one thread
                MinimumParallelLength = 256 << 10,  // default: buffers under 256 KiB stay on the calling thread
            });
            // SNIPPET END

            using RecordBatch expected = TestTables.Realistic(100_000, seed: 3);
            byte[] bytes = Write(expected, fileFormat: false, parallelFactory);
            using var reader = new ArrowStreamReader(new MemoryStream(bytes), parallelFactory);
            AssertReadsBack(expected, reader.ReadNextRecordBatch());
        }

        // src/ArrowLz4Fast.Frames/README.md (the package's own readme).
        [Fact]
        public void Frames_readme_frame_api()
        {
            byte[] data = TestData.Mixed(300_000, seed: 5);
            byte[] destination = new byte[data.Length + 100];   // room to spare, as both readmes allow

            // SNIPPET
            // One frame of independent blocks; false when it does not fit. contentSize: true writes the content size field.
            var options = new Lz4FrameEncoderOptions(blockSize: 1 << 20, level: 0, contentChecksum: true, contentSize: true);
            byte[] frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(data.Length, options)];
            bool fits = Lz4FrameEncoder.TryEncode(data, frame, out int frameLength, options);

            // false on any failure (too small, malformed, a dictionary frame), as BrotliDecoder.TryDecompress.
            bool done = Lz4FrameDecoder.TryDecode(frame.AsSpan(0, frameLength), destination, out int written);

            // Or with a status (Done, DestinationTooSmall, DictionaryRequired); malformed input throws InvalidDataException.
            Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(frame.AsSpan(0, frameLength), destination, out int consumed, out written);

            // Walk a frame token by token with exact positions, like Utf8JsonReader.
            var reader = new Lz4FrameReader(frame.AsSpan(0, frameLength));
            while (reader.Read())
                Console.WriteLine($"{reader.TokenType} at {reader.TokenStartIndex}");
            // SNIPPET END

            Assert.True(fits && done);
            Assert.Equal(Lz4FrameDecodeStatus.Done, status);
            Assert.Equal(frameLength, consumed);
            Assert.Equal(data.Length, written);
            Assert.True(data.AsSpan().SequenceEqual(destination.AsSpan(0, written)));
        }

        // docs/streams.md, the decoding stream, and Lz4FramedArrow's one line (README.md, "Lz4FramedArrow", in prose).
        [Fact]
        public void Readme_frame_stream_and_framed_arrow()
        {
            byte[] payload = TestData.Mixed(1 << 20, seed: 9);
            string path = Path.Combine(Path.GetTempPath(), $"readme-doc-{Environment.ProcessId}.lz4");
            File.WriteAllBytes(path, TestData.Encode(payload, default));
            var destination = new MemoryStream();
            byte[] ipc = FramedArrowTests.Uncompressed(Corpus.Committed("ipc/pyarrow/tiny_batches.arrows"));
            Stream responseStream = new MemoryStream(TestData.Encode(ipc, default));
            try
            {
                // SNIPPET
                using (var lz4 = new Lz4FrameStream(File.OpenRead(path), CompressionMode.Decompress))
                    lz4.CopyTo(destination);

                using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(responseStream);   // then read it as any other
                // SNIPPET END

                Assert.Equal(payload, destination.ToArray());
                long rows = 0;
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    using (batch)
                        rows += batch.Length;
                }
                Assert.Equal(10_000, rows);
            }
            finally
            {
                File.Delete(path);
            }
        }

        // README.md, "Parallel read" (in prose), and docs/parallel-read.md, "Usage".
        [Fact]
        public void Readme_parallel_read()
        {
            string path = Corpus.Committed("ipc/pyarrow/strings.arrows");

            // SNIPPET
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path)), SlabMemoryAllocator.Shared);
            // SNIPPET END

            long rows = 0;
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                using (batch)
                    rows += batch.Length;
            }
            Assert.Equal(ArrowData.ReadAll(path, new Apache.Arrow.Compression.CompressionCodecFactory()).Sum(b => (long)b.Length), rows);
        }

        // docs/api.md, "Errors".
        [Fact]
        public void Api_doc_catch_with_offset()
        {
            var log = new Log();
            byte[] data = TestData.Mixed(100_000, seed: 6);
            byte[] encoded = new byte[Lz4FrameEncoder.GetMaxEncodedLength(data.Length)];
            Assert.True(Lz4FrameEncoder.TryEncode(data, encoded, out int encodedLength));
            encoded[6] ^= 0x5A;   // the frame header's checksum byte (no content size field)

            try
            {
                Lz4FrameDecoder.Decode(encoded.AsSpan(0, encodedLength), new byte[data.Length], out _, out _);
                log.Warn("decoded");   // a corruption that still decodes: the test below then fails
            }
            // SNIPPET
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
            {
                log.Warn($"corrupt LZ4 buffer ({frame.Kind}) at byte {frame.Offset}: {e.Message}");
            }
            // SNIPPET END

            Assert.StartsWith("corrupt LZ4 buffer (HeaderChecksum) at byte 6: ", Assert.Single(log.Lines));
        }

        // docs/parallel.md, the opening snippet.
        [Fact]
        public void Parallel_doc_options_and_frame_api()
        {
            byte[] data = TestData.Mixed(2 << 20, seed: 7);
            byte[] frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(data.Length)];
            byte[] destination = new byte[data.Length];

            // SNIPPET
            var factory = new Lz4FastCodecFactory(new Lz4FastOptions
            {
                MaxDegreeOfParallelism = -1,        // default: every core (Environment.ProcessorCount); 1 = one thread
                MinimumParallelLength = 256 << 10,  // default: buffers under 256 KiB stay on the calling thread
            });

            // The frame API takes the same settings; there the default, default(Lz4Parallelism), is sequential.
            var parallel = new Lz4Parallelism(maxDegreeOfParallelism: -1, minimumLength: 256 << 10);
            Lz4FrameEncoder.TryEncode(data, frame, out int frameLength, new Lz4FrameEncoderOptions(256 << 10, parallelism: parallel));
            Lz4FrameDecoder.Decode(frame.AsSpan(0, frameLength), destination, out _, out _, new Lz4FrameDecoderOptions(verifyChecksums: true, parallel));
            // SNIPPET END

            Assert.True(data.AsSpan().SequenceEqual(destination));
            Assert.NotNull(factory.CreateCodec(CompressionCodecType.Lz4Frame));
        }

        // docs/api.md, "Flight and ArrowContext".
        [Fact]
        public void Api_doc_arrow_context()
        {
            using RecordBatch expected = TestTables.Realistic(Rows, seed: 8);
            using var stream = new MemoryStream(WriteLz4(expected, fileFormat: false));
            var factory = new Lz4FastCodecFactory();

            // SNIPPET
            using var reader = new ArrowStreamReader(new ArrowContext(compressionCodecFactory: factory), stream);
            // SNIPPET END

            AssertReadsBack(expected, reader.ReadNextRecordBatch());
        }

        // Every ```csharp block of the docs, without its using directives, appears line for line (indentation aside) in a
        // test or a sample, so a snippet edited in a doc alone fails here.
        [Fact]
        public void Every_doc_snippet_is_in_a_test_or_sample()
        {
            string root = CorpusLocator.RepositoryRoot;
            string[] docs = new[] { Path.Combine(root, "README.md"), Path.Combine(root, "src", "ArrowLz4Fast.Frames", "README.md") }
                .Concat(Directory.Exists(Path.Combine(root, "docs")) ? Directory.GetFiles(Path.Combine(root, "docs"), "*.md") : System.Array.Empty<string>())
                .ToArray();
            string code = string.Join("\n", new[] { "tests", "samples" }
                .SelectMany(folder => Directory.GetFiles(Path.Combine(root, folder), "*.cs", SearchOption.AllDirectories))
                .Where(path => !path.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                    && !path.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
                .Select(path => Normalize(File.ReadAllLines(path))));

            var missing = new List<string>();
            int snippets = 0;
            foreach (string doc in docs)
            {
                foreach (Match block in Regex.Matches(File.ReadAllText(doc).Replace("\r\n", "\n"), "```csharp\n(.*?)```", RegexOptions.Singleline))
                {
                    snippets++;
                    string snippet = Normalize(block.Groups[1].Value.Split('\n').Where(line => !Regex.IsMatch(line, @"^using [\w.]+;\s*$")));
                    if (!code.Contains(snippet, StringComparison.Ordinal))
                        missing.Add($"{Path.GetRelativePath(root, doc)}: {snippet.Split('\n')[0]}");
                }
            }
            Assert.True(snippets >= 9, $"found only {snippets} snippets");
            Assert.True(missing.Count == 0, "snippets in no test or sample:\n" + string.Join("\n", missing));
        }

        private static string Normalize(IEnumerable<string> lines) =>
            string.Join("\n", lines.Select(line => line.Trim()).Where(line => line.Length > 0));

        private sealed class Log
        {
            public List<string> Lines { get; } = new();

            public void Warn(string line) => Lines.Add(line);
        }

        private static byte[] WriteLz4(RecordBatch batch, bool fileFormat) => Write(batch, fileFormat, new Lz4FastCodecFactory());

        /// <summary>The batch as an LZ4 IPC stream and as an LZ4 IPC file, for the snippets' <c>stream</c> and <c>fileStream</c>.</summary>
        private static (MemoryStream Stream, MemoryStream FileStream) Lz4Inputs(RecordBatch batch) =>
            (new MemoryStream(WriteLz4(batch, fileFormat: false)), new MemoryStream(WriteLz4(batch, fileFormat: true)));

        /// <summary>Writes <paramref name="expected"/> with a snippet's writer and reads <paramref name="output"/> back through <paramref name="open"/>.</summary>
        private static void AssertWriterReadsBack(RecordBatch expected, ArrowStreamWriter writer, MemoryStream output, Func<Stream, ArrowStreamReader> open)
        {
            writer.WriteRecordBatch(expected);
            writer.WriteEnd();
            using ArrowStreamReader check = open(new MemoryStream(output.ToArray()));
            AssertReadsBack(expected, check.ReadNextRecordBatch());
        }

        private static byte[] Write(RecordBatch batch, bool fileFormat, ICompressionCodecFactory factory)
        {
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory };
            var output = new MemoryStream();
            using (ArrowStreamWriter writer = fileFormat
                       ? new ArrowFileWriter(output, batch.Schema, leaveOpen: true, options)
                       : new ArrowStreamWriter(output, batch.Schema, leaveOpen: true, options))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.ToArray();
        }

        private static void AssertReadsBack(RecordBatch expected, RecordBatch? actual)
        {
            Assert.NotNull(actual);
            using (actual)
                ArrowData.AssertSameValues(new[] { expected }, new[] { actual! });
        }
    }
}
