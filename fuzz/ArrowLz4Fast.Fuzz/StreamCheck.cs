using System;
using System.Buffers;
using System.IO;
using System.IO.Compression;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// <c>--stream</c>: each mutant read through <see cref="Lz4FrameStream"/> with random read sizes over an inner stream
    /// that hands out random chunks, sync or async, and compared with liblz4 (accepts, bytes) and with the one-shot span
    /// decoder <see cref="Lz4FrameDecoder.DecodeToOwner"/> (the same bytes, or the same exception type and message);
    /// half of them with read-ahead (parallel decoder options).
    /// </summary>
    internal static class StreamCheck
    {
        public static void Check(Oracle oracle, byte[] input, Reference reference, Random rng, Verdict verdict)
        {
            byte[]? spanOutput = null;
            Exception? spanError = oracle.Run(() =>
            {
                using IMemoryOwner<byte> owner = Lz4FrameDecoder.DecodeToOwner(input);
                spanOutput = owner.Memory.ToArray();
            });

            bool async = rng.Next(4) == 0;
            // Half the reads with read-ahead on any two buffered blocks, on 2 to 4 threads.
            int degree = rng.Next(2) == 0 ? 1 : 2 + rng.Next(3);
            var options = new Lz4FrameDecoderOptions(verifyChecksums: true, degree == 1 ? default : new Lz4Parallelism(degree, 1));
            // Byte-sized reads and chunks only where they stay well under the watchdog's second on a loaded machine.
            int produced = reference.Accepts ? reference.Output!.Length : reference.PartialLength;
            int maxChunk = rng.Next(3) switch { 0 when input.Length < (64 << 10) => 1 + rng.Next(16), 1 => 1 + rng.Next(4096), _ => input.Length + 1 };
            int maxRead = rng.Next(2) == 0 && produced < (256 << 10) ? 1 + rng.Next(64) : Math.Min(8 << 20, 2 * Math.Max(input.Length, produced) + 16);
            var output = new MemoryStream(reference.Accepts ? reference.Output!.Length : 0);
            var inner = new TrickleStream(input, new Random(rng.Next()), maxChunk, completeLater: false);
            var reads = new Random(rng.Next());
            Exception? error = oracle.Run(() =>
            {
                using var stream = new Lz4FrameStream(inner, options);
                byte[] buffer = new byte[maxRead];
                while (true)
                {
                    int size = 1 + reads.Next(maxRead);
                    int n = async ? stream.ReadAsync(buffer.AsMemory(0, size), CancellationToken.None).AsTask().GetAwaiter().GetResult() : stream.Read(buffer, 0, size);
                    if (n == 0)
                        break;
                    output.Write(buffer, 0, n);
                }
            });
            string call = $"stream ({(async ? "async" : "sync")}, degree {degree}, reads of 1..{maxRead}, inner chunks of 1..{maxChunk})";

            if (error is not null && !(error is InvalidDataException { InnerException: Lz4FrameException }) && !(error is NotSupportedException && error.Message.Contains("dictionary", StringComparison.Ordinal)))
                verdict.Add("wrong-exception-type", $"{call} threw {error.GetType().FullName}: {error.Message}");

            string actual = error is null ? $"{output.Length} bytes" : $"{error.GetType().Name}: {error.Message}";
            string expected = spanError is null ? $"{spanOutput!.Length} bytes" : $"{spanError.GetType().Name}: {spanError.Message}";
            if (actual != expected || (error is null && !Written(output).SequenceEqual(spanOutput)))
                verdict.Add("stream-differs-from-span", $"{call}: {actual}; span decoder {expected}");

            if (error is NotSupportedException)
            {
                verdict.Documented("dictionary-frame");
            }
            else if (reference.Accepts)
            {
                if (error is not null)
                    verdict.Add("liblz4-accepts-project-rejects", $"{call} threw {error.GetType().Name}: {error.Message}");
                else if (!Written(output).SequenceEqual(reference.Output))
                    verdict.Add("different-bytes", $"{call}: {output.Length} bytes; liblz4 {reference}");
            }
            else if (error is null)
            {
                verdict.Add("project-accepts-liblz4-rejects", $"{call} decoded {output.Length} bytes; liblz4 {reference}");
            }
        }

        private static ReadOnlySpan<byte> Written(MemoryStream output) => output.GetBuffer().AsSpan(0, (int)output.Length);
    }
}
