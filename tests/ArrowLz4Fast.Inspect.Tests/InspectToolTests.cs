using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.Json;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Inspect;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Inspect.Tests
{
    /// <summary>
    /// The inspect tool against the real corpus: its per-buffer report must agree with the corpus digest tool's
    /// .expected.json (written from Python with the reference liblz4), and with what Apache.Arrow hands the codec.
    /// </summary>
    public class InspectToolTests
    {
        private static readonly string CorpusDir = CorpusLocator.Directory;

        public static IEnumerable<object[]> IpcFiles() =>
            Directory.EnumerateFiles(Path.Combine(CorpusDir, "ipc"), "*.expected.json", SearchOption.AllDirectories)
                .Select(p => p.Substring(0, p.Length - ".expected.json".Length))
                .Where(File.Exists)
                .Select(p => Path.GetRelativePath(CorpusDir, p).Replace('\\', '/'))
                .OrderBy(p => p, StringComparer.Ordinal)
                .Select(p => new object[] { p });

        [Theory]
        [MemberData(nameof(IpcFiles))]
        public void Json_report_agrees_with_the_reference_digest_buffer_by_buffer(string file)
        {
            (int exit, string stdout, string stderr) = Run(Path.Combine(CorpusDir, file), "--json");
            Assert.True(exit == 0, stderr);
            JsonElement report = JsonDocument.Parse(stdout).RootElement;
            JsonElement expected = JsonDocument.Parse(File.ReadAllText(Path.Combine(CorpusDir, file) + ".expected.json")).RootElement;

            Dictionary<int, JsonElement> messages = report.GetProperty("messages").EnumerateArray()
                .ToDictionary(m => m.GetProperty("index").GetInt32());
            int compared = 0;
            foreach (JsonElement want in expected.GetProperty("messages").EnumerateArray())
            {
                int index = want.GetProperty("index").GetInt32();
                Assert.True(messages.TryGetValue(index, out JsonElement got), $"message {index} missing from the report");
                Assert.Equal(want.GetProperty("type").GetString(), got.GetProperty("type").GetString());
                if (want.TryGetProperty("rows", out JsonElement rows))
                    Assert.Equal(rows.GetInt64(), got.GetProperty("rows").GetInt64());
                if (want.TryGetProperty("codec", out JsonElement codec) && codec.ValueKind == JsonValueKind.String)
                    Assert.Equal(codec.GetString(), got.GetProperty("codec").GetString());

                JsonElement[] wantBuffers = want.GetProperty("buffers").EnumerateArray().ToArray();
                JsonElement[] gotBuffers = got.GetProperty("buffers").EnumerateArray().ToArray();
                Assert.Equal(wantBuffers.Length, gotBuffers.Length);
                for (int b = 0; b < wantBuffers.Length; b++)
                {
                    string where = $"{file} message {index} buffer {b}";
                    foreach (string field in new[] { "offset", "length", "uncompressed_length" })
                    {
                        if (wantBuffers[b].TryGetProperty(field, out JsonElement value))
                            Assert.True(value.GetInt64() == gotBuffers[b].GetProperty(field).GetInt64(), $"{where}: {field}");
                    }
                    if (wantBuffers[b].TryGetProperty("stored_raw", out JsonElement raw))
                        Assert.True(raw.GetBoolean() == gotBuffers[b].GetProperty("stored_raw").GetBoolean(), $"{where}: stored_raw");
                    if (wantBuffers[b].TryGetProperty("frame", out JsonElement wantFrame))
                    {
                        Assert.True(gotBuffers[b].TryGetProperty("frame", out JsonElement gotFrame), $"{where}: no frame profile");
                        foreach (JsonProperty property in wantFrame.EnumerateObject())
                        {
                            Assert.True(gotFrame.TryGetProperty(property.Name, out JsonElement value), $"{where}: frame.{property.Name} missing");
                            Assert.True(property.Value.GetRawText() == value.GetRawText(), $"{where}: frame.{property.Name} is {value.GetRawText()}, reference says {property.Value.GetRawText()}");
                        }
                        compared++;
                    }
                }
            }

            JsonElement wantSummary = expected.GetProperty("summary");
            JsonElement gotSummary = report.GetProperty("summary");
            Assert.Equal(wantSummary.GetProperty("stored_raw_buffers").GetInt32(), gotSummary.GetProperty("stored_raw_buffers").GetInt32());
            Assert.Equal(compared, gotSummary.GetProperty("lz4_frames").GetInt32());
        }

        [Theory]
        [MemberData(nameof(IpcFiles))]
        public void Direct_count_matches_the_codec_calls_Apache_Arrow_makes(string file)
        {
            string path = Path.Combine(CorpusDir, file);
            (int exit, string stdout, string stderr) = Run(path, "--json");
            Assert.True(exit == 0, stderr);
            JsonElement summary = JsonDocument.Parse(stdout).RootElement.GetProperty("summary");

            var counter = new CountingFactory(new Lz4FastCodecFactory(new OfficialFactory()));
            using (var stream = File.OpenRead(path))
            using (ArrowStreamReader reader = path.EndsWith(".arrow", StringComparison.Ordinal) ? new ArrowFileReader(stream, counter) : new ArrowStreamReader(stream, counter))
            {
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
            }

            Assert.Equal(counter.NonEmptyLz4Calls, summary.GetProperty("direct").GetInt32() + summary.GetProperty("declined").GetInt32());
            Assert.Equal(counter.EmptyCalls, summary.GetProperty("empty").GetInt32());
        }

        [Theory]
        [MemberData(nameof(IpcFiles))]
        public void Verify_finds_ArrowLz4Fast_and_the_official_decoder_identical(string file)
        {
            (int exit, string stdout, string stderr) = Run(Path.Combine(CorpusDir, file), "--verify");
            Assert.True(exit == 0, stderr + stdout);
            Assert.DoesNotContain("differs at byte", stdout, StringComparison.Ordinal);
            Assert.DoesNotContain("lengths differ", stdout, StringComparison.Ordinal);
            Assert.Contains("arrow: Apache.Arrow read", stdout, StringComparison.Ordinal);
            Assert.Contains("verify: every LZ4 buffer decodes identically", stdout, StringComparison.Ordinal);
        }

        [Fact]
        public void Text_summary_and_json_summary_agree()
        {
            string path = Path.Combine(CorpusDir, "ipc/java/nested_dict.arrows");
            (_, string text, _) = Run(path);
            (_, string json, _) = Run(path, "--json");
            JsonElement summary = JsonDocument.Parse(json).RootElement.GetProperty("summary");
            string line = text.Split('\n').Single(l => l.StartsWith("summary:", StringComparison.Ordinal));
            Assert.Contains($"{summary.GetProperty("lz4_frames").GetInt32()} LZ4 frames: {summary.GetProperty("direct").GetInt32()} direct", line, StringComparison.Ordinal);
            Assert.Contains($"{summary.GetProperty("compressed_bytes").GetInt64()} -> {summary.GetProperty("uncompressed_bytes").GetInt64()} bytes", line, StringComparison.Ordinal);
            Assert.True(summary.GetProperty("direct").GetInt32() > 0);
        }

        [Fact]
        public void A_missing_file_is_one_line_and_exit_code_2()
        {
            (int exit, string stdout, string stderr) = Run(Path.Combine(CorpusDir, "no-such-file.arrows"));
            Assert.Equal(Inspector.BadInput, exit);
            AssertOneCleanLine(stderr, "no such file");
            Assert.Equal("", stdout);
        }

        [Fact]
        public void A_file_that_is_not_Arrow_is_one_line_and_exit_code_2()
        {
            string path = Path.Combine(CorpusDir, "PROVENANCE.md");
            (int exit, _, string stderr) = Run(path);
            Assert.Equal(Inspector.BadInput, exit);
            AssertOneCleanLine(stderr, "not an Arrow IPC stream");
        }

        [Theory]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/tiny_batches.arrows")]
        [InlineData("ipc/rust/wide.arrows")]
        public void Truncated_files_are_reported_with_an_offset_never_a_crash(string file)
        {
            byte[] whole = File.ReadAllBytes(Path.Combine(CorpusDir, file));
            string temp = Path.Combine(Path.GetTempPath(), $"arrow-lz4-test-{Guid.NewGuid():N}.arrows");
            try
            {
                // Cuts inside the first message's length prefix, its metadata, and a body.
                foreach (int cut in new[] { 3, 6, 40, whole.Length / 2 + 1, whole.Length - 9 })
                {
                    File.WriteAllBytes(temp, whole.AsSpan(0, cut).ToArray());
                    (int exit, _, string stderr) = Run(temp);
                    Assert.True(exit == Inspector.BadInput, $"cut at {cut}: exit {exit}, stderr: {stderr}");
                    AssertOneCleanLine(stderr, "byte offset");
                }
            }
            finally
            {
                File.Delete(temp);
            }
        }

        [Fact]
        public void A_corrupt_frame_is_flagged_with_its_offset()
        {
            byte[] data = File.ReadAllBytes(Path.Combine(CorpusDir, "ipc/pyarrow/strings.arrows"));
            // Overwrite the magic of the first LZ4 frame (the 4 bytes after its 8-byte length prefix).
            Inspection clean = Inspector.Inspect("strings", data, verify: false);
            BufferReport first = clean.AllBuffers.First(b => b.Path == BufferPath.Direct);
            data[first.AbsoluteOffset + 8] ^= 0xFF;
            string temp = Path.Combine(Path.GetTempPath(), $"arrow-lz4-test-{Guid.NewGuid():N}.arrows");
            try
            {
                File.WriteAllBytes(temp, data);
                (int exit, string stdout, _) = Run(temp);
                Assert.Equal(Inspector.BadInput, exit);
                Assert.Contains("CORRUPT", stdout, StringComparison.Ordinal);
                Assert.Contains("magic number", stdout, StringComparison.Ordinal);
            }
            finally
            {
                File.Delete(temp);
            }
        }

        // Arrow Java writes a content checksum on every frame. A flipped checksum byte leaves the data decodable: the
        // official decoder (K4os) accepts it, ArrowLz4Fast rejects it. The summary must count that buffer as corrupt and
        // say which decoder rejected it, never "0 corrupt" beside a failed verification, nor "ok" for the acceptance.
        [Fact]
        public void Verify_counts_a_buffer_one_decoder_rejects_as_corrupt_and_names_the_decoder()
        {
            byte[] data = File.ReadAllBytes(Path.Combine(CorpusDir, "ipc/java/strings.arrows"));
            Inspection clean = Inspector.Inspect("strings", data, verify: false);
            BufferReport target = clean.AllBuffers.First(b => b.Path == BufferPath.Direct && b.Frame!.ContentChecksum);
            data[target.AbsoluteOffset + target.Buffer.Length - 1] ^= 0x01;   // the last byte of the frame's content checksum
            string temp = Path.Combine(Path.GetTempPath(), $"arrow-lz4-test-{Guid.NewGuid():N}.arrows");
            try
            {
                File.WriteAllBytes(temp, data);
                (int exit, string stdout, _) = Run(temp, "--verify");
                Assert.Equal(Inspector.VerificationFailed, exit);
                string[] lines = stdout.Split('\n');
                string flagged = Assert.Single(lines, l => l.Contains("verify: ", StringComparison.Ordinal) && !l.Contains("identical", StringComparison.Ordinal) && l.StartsWith("  buffer", StringComparison.Ordinal));
                Assert.Contains("rejected by ArrowLz4Fast", flagged, StringComparison.Ordinal);
                Assert.Contains("checksum", flagged, StringComparison.Ordinal);
                Assert.Contains("the official decoder accepted it", flagged, StringComparison.Ordinal);
                Assert.DoesNotContain("official: ok", stdout, StringComparison.Ordinal);
                Assert.Contains(lines, l => l.StartsWith("verify: 1 buffer(s) corrupt: 1 rejected by ArrowLz4Fast alone", StringComparison.Ordinal));
                Assert.Contains(", 1 corrupt;", lines.Single(l => l.StartsWith("summary:", StringComparison.Ordinal)), StringComparison.Ordinal);

                (_, string json, _) = Run(temp, "--verify", "--json");
                JsonElement summary = JsonDocument.Parse(json).RootElement.GetProperty("summary");
                Assert.Equal(1, summary.GetProperty("corrupt").GetInt32());
                Assert.Equal(1, summary.GetProperty("rejected_by_arrowlz4fast_alone").GetInt32());
                Assert.Equal(0, summary.GetProperty("rejected_by_official_alone").GetInt32());
            }
            finally
            {
                File.Delete(temp);
            }
        }

        private static void AssertOneCleanLine(string stderr, string expected)
        {
            string[] lines = stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.True(lines.Length == 1, stderr);
            Assert.StartsWith("arrow-lz4: ", lines[0], StringComparison.Ordinal);
            Assert.Contains(expected, lines[0], StringComparison.Ordinal);
            Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
        }

        /// <summary>
        /// The tool holds schemas to what the wrapper verifies (the same list, IpcTypeRules): a decimal of 77 digits in
        /// 256 bits, planted in a schema Arrow .NET wrote, is bad input naming the field; the schema as written passes.
        /// </summary>
        [Fact]
        public void A_schema_the_wrapper_refuses_is_bad_input_naming_the_field()
        {
            var schema = new Schema.Builder().Field(new Field("dec", new Apache.Arrow.Types.Decimal256Type(40, 2), true)).Build();
            var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, schema, leaveOpen: true))
            {
                writer.WriteStart();
                writer.WriteEnd();
            }
            byte[] bytes = output.ToArray();
            string path = Path.Combine(Path.GetTempPath(), $"arrow-lz4-schema-{Guid.NewGuid():N}.arrows");
            try
            {
                File.WriteAllBytes(path, bytes);
                Assert.Equal(Inspector.Ok, Run(path).Exit);

                // The precision, an int32 of 40, is the only such value in this schema.
                byte[] forty = BitConverter.GetBytes(40);
                int[] at = Enumerable.Range(0, bytes.Length - 3).Where(i => bytes.AsSpan(i, 4).SequenceEqual(forty)).ToArray();
                Assert.Single(at);
                BitConverter.GetBytes(77).CopyTo(bytes, at[0]);
                File.WriteAllBytes(path, bytes);
                (int exit, _, string stderr) = Run(path);
                Assert.Equal(Inspector.BadInput, exit);
                AssertOneCleanLine(stderr, $"field 'dec' type Decimal: precision 77 (1 to 76 for 256 bits) at byte offset {at[0]}");
            }
            finally
            {
                File.Delete(path);
            }
        }

        private static (int Exit, string Stdout, string Stderr) Run(params string[] args)
        {
            using var stdout = new StringWriter();
            using var stderr = new StringWriter();
            int exit = Inspector.Run(args, stdout, stderr);
            return (exit, stdout.ToString(), stderr.ToString());
        }

        /// <summary>Counts the LZ4 Decompress calls Apache.Arrow makes, empty sources apart.</summary>
        private sealed class CountingFactory : ICompressionCodecFactory
        {
            private readonly ICompressionCodecFactory _inner;

            public CountingFactory(ICompressionCodecFactory inner) => _inner = inner;

            public int NonEmptyLz4Calls { get; private set; }

            public int EmptyCalls { get; private set; }

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) => CreateCodec(compressionCodecType, null);

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) =>
                new Codec(_inner.CreateCodec(compressionCodecType, compressionLevel), this, compressionCodecType);

            private sealed class Codec : ICompressionCodec
            {
                private readonly ICompressionCodec _codec;
                private readonly CountingFactory _owner;
                private readonly CompressionCodecType _type;

                public Codec(ICompressionCodec codec, CountingFactory owner, CompressionCodecType type)
                {
                    _codec = codec;
                    _owner = owner;
                    _type = type;
                }

                public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
                {
                    if (source.IsEmpty) _owner.EmptyCalls++;
                    else if (_type == CompressionCodecType.Lz4Frame) _owner.NonEmptyLz4Calls++;
                    return _codec.Decompress(source, destination);
                }

                public void Compress(ReadOnlyMemory<byte> source, Stream destination) => _codec.Compress(source, destination);

                public void Dispose() => _codec.Dispose();
            }
        }
    }
}
