using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// The frames mutants start from: the committed raw-frame, malformed and liblz4-agreement corpus; the LZ4 buffers
    /// Arrow hands to the codec when reading the committed IPC streams of pyarrow, arrow-rs and Arrow Java; and frames
    /// the lz4 CLI writes with varied options. Kept small (≤ 256 KiB of frame, ≤ 1 MiB decoded) so a mutant costs
    /// microseconds, deduplicated, and in a fixed order so a (seed, index) pair names the same mutant on every machine.
    /// </summary>
    internal static class Seeds
    {
        private const int MaxFrame = 256 << 10;
        private const int MaxContent = 1 << 20;
        private const int MaxBuffersPerStream = 60;

        public static List<byte[]> Load(string repositoryRoot, Liblz4 liblz4, Action<string> log)
        {
            string corpus = CorpusLocator.Directory;
            _ = repositoryRoot;
            var seeds = new List<byte[]>();
            var seen = new HashSet<string>();
            void Add(byte[] frame)
            {
                if (frame.Length > MaxFrame)
                    return;
                Reference reference = liblz4.Decode(frame);
                if (reference.OverCap || (reference.Accepts && reference.Output!.Length > MaxContent))
                    return;
                if (seen.Add(Convert.ToHexString(SHA256.HashData(frame))))
                    seeds.Add(frame);
            }

            int before = 0;
            foreach (string folder in new[] { "frames", "malformed", "liblz4-agreement" })
            {
                foreach (string file in Files(Path.Combine(corpus, folder), "*.lz4"))
                    Add(File.ReadAllBytes(file));
                log($"seeds: {seeds.Count - before} from corpus/{folder}");
                before = seeds.Count;
            }

            foreach (string file in Files(Path.Combine(corpus, "ipc"), "*.arrow*"))
            {
                foreach (byte[] frame in IpcBuffers(file).Take(MaxBuffersPerStream))
                    Add(frame);
            }
            log($"seeds: {seeds.Count - before} LZ4 buffers of the committed IPC streams");
            before = seeds.Count;

            foreach (byte[] frame in CliFrames(log))
                Add(frame);
            log($"seeds: {seeds.Count - before} frames written by the lz4 CLI");
            before = seeds.Count;

            foreach (byte[] frame in EncoderFrames())
                Add(frame);
            log($"seeds: {seeds.Count - before} frames of sources of one block that the package's encoder cut into equal pieces");
            return seeds;
        }

        private static IEnumerable<string> Files(string folder, string pattern) =>
            Directory.Exists(folder)
                ? Directory.EnumerateFiles(folder, pattern, SearchOption.AllDirectories).Where(f => !f.EndsWith(".json", StringComparison.Ordinal)).OrderBy(f => f, StringComparer.Ordinal)
                : Enumerable.Empty<string>();

        /// <summary>The LZ4 frames of one IPC stream or file, as Arrow's reader hands them to the codec.</summary>
        private static List<byte[]> IpcBuffers(string file)
        {
            var recorder = new RecordingFactory();
            try
            {
                using FileStream stream = File.OpenRead(file);
                if (file.EndsWith(".arrow", StringComparison.Ordinal))
                {
                    using var reader = new ArrowFileReader(stream, recorder);
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                        batch.Dispose();
                }
                else
                {
                    using var reader = new ArrowStreamReader(stream, recorder);
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                        batch.Dispose();
                }
            }
            catch (Exception e) when (e is NotSupportedException or InvalidDataException)
            {
                // ZSTD streams and the like: no LZ4 buffers to take.
            }
            return recorder.Frames;
        }

        private sealed class RecordingFactory : ICompressionCodecFactory
        {
            public List<byte[]> Frames { get; } = new();

            public ICompressionCodec CreateCodec(CompressionCodecType type) => CreateCodec(type, null);

            public ICompressionCodec CreateCodec(CompressionCodecType type, int? level) =>
                type == CompressionCodecType.Lz4Frame ? new RecordingCodec(Frames) : throw new NotSupportedException(type.ToString());
        }

        private sealed class RecordingCodec : ICompressionCodec
        {
            private readonly List<byte[]> _frames;
            private readonly Lz4FastCodec _inner = new();

            public RecordingCodec(List<byte[]> frames) => _frames = frames;

            public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
            {
                if (!source.IsEmpty)
                    _frames.Add(source.ToArray());
                return _inner.Decompress(source, destination);
            }

            public void Compress(ReadOnlyMemory<byte> source, Stream destination) => throw new NotSupportedException();

            public void Dispose()
            {
            }
        }

        /// <summary>Frames from the reference lz4 CLI over deterministic payloads, when the CLI is installed.</summary>
        private static IEnumerable<byte[]> CliFrames(Action<string> log)
        {
            string[] options =
            {
                "-1 -B4 -BD", "-1 -B4", "-9 -B4 -BD -BX", "-12 -B5 -BD --content-size", "-1 -B6 -BX --no-frame-crc",
                "-9 -B7 -BD", "-1 -B5 --no-frame-crc --content-size", "-12 -B4 -BX", "--fast=3 -B4 -BD", "-1 -B4 -BD --favor-decSpeed",
            };
            var payloads = Payloads().ToList();
            var frames = new List<byte[]>();
            for (int i = 0; i < options.Length; i++)
            {
                foreach ((string name, byte[] payload) in payloads.Where((_, j) => (i + j) % 2 == 0))
                {
                    byte[]? frame = RunCli($"-c -q {options[i]}", payload);
                    if (frame is null)
                    {
                        log("seeds: the lz4 CLI is not installed (apt-get install lz4): no CLI-written seeds in this run");
                        return frames;
                    }
                    frames.Add(frame);
                }
            }
            return frames;
        }

        /// <summary>
        /// The package's own frames of a source of one block from 256 KiB up, which its encoder cuts into equal pieces
        /// (blocks shorter than the maximum), so that a forced parallel run decodes them at the piece stride.
        /// </summary>
        private static IEnumerable<byte[]> EncoderFrames()
        {
            foreach ((string _, byte[] payload) in Payloads().Where(p => p.Item2.Length >= ArrowLz4Fast.Frames.Lz4Parallelism.DefaultMinimumLength))
            {
                foreach (bool checksums in new[] { false, true })
                {
                    var options = new ArrowLz4Fast.Frames.Lz4FrameEncoderOptions(1 << 20, 0, contentChecksum: checksums, blockChecksum: checksums, contentSize: !checksums);
                    var frame = new byte[ArrowLz4Fast.Frames.Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, options)];
                    if (ArrowLz4Fast.Frames.Lz4FrameEncoder.TryEncode(payload, frame, out int written, options))
                        yield return frame.AsSpan(0, written).ToArray();
                }
            }
        }

        private static IEnumerable<(string, byte[])> Payloads()
        {
            var rng = new Random(20261123);
            byte[] text = System.Text.Encoding.ASCII.GetBytes(string.Concat(Enumerable.Range(0, 40_000).Select(i => $"row {i % 977} value {(i * 31) % 1009};")));
            yield return ("text300k", text.AsSpan(0, 300_000).ToArray());
            yield return ("text5k", text.AsSpan(0, 5_000).ToArray());
            byte[] ints = new byte[200_000];
            for (int i = 0; i < ints.Length / 8; i++)
                BitConverter.TryWriteBytes(ints.AsSpan(i * 8), (long)i * 3);
            yield return ("int64", ints);
            yield return ("zeros", new byte[150_000]);
            byte[] random = new byte[70_000];
            rng.NextBytes(random);
            yield return ("random", random);
            byte[] mixed = new byte[130_000];
            for (int i = 0; i < mixed.Length; i++)
                mixed[i] = (i / 4096 % 3) switch { 0 => (byte)rng.Next(256), 1 => (byte)(i % 7), _ => text[i % text.Length] };
            yield return ("mixed", mixed);
            yield return ("tiny", new byte[] { 1, 2, 3 });
            yield return ("empty", System.Array.Empty<byte>());
        }

        private static byte[]? RunCli(string arguments, byte[] input)
        {
            try
            {
                using Process process = Process.Start(new ProcessStartInfo("lz4", arguments)
                {
                    RedirectStandardInput = true,
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                    UseShellExecute = false,
                })!;
                var output = new MemoryStream();
                var copy = process.StandardOutput.BaseStream.CopyToAsync(output);
                process.StandardInput.BaseStream.Write(input);
                process.StandardInput.Close();
                copy.Wait();
                process.WaitForExit();
                return process.ExitCode == 0 ? output.ToArray() : null;
            }
            catch (System.ComponentModel.Win32Exception)
            {
                return null;
            }
        }
    }
}
