using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The codec's parallel calls measured process-wide: serial, so that other tests do not show up in the count.</summary>
    [Collection(SerialTests.Name)]
    public class CodecProcessWideTests
    {
        private readonly ITestOutputHelper _output;

        public CodecProcessWideTests(ITestOutputHelper output) => _output = output;

        [Fact]
        public void A_parallel_call_allocates_a_small_constant_and_nothing_per_block()
        {
            // 46 and 183 blocks of 64 KiB: the allocation must not grow with the block count.
            var works = new[] { new ParallelWork(65536, 7), new ParallelWork(65536, 8) };
            byte[] big = TestData.Mixed(12_000_000, 9);
            var bigOptions = new Lz4FrameEncoderOptions(65536, 0, true, false);
            var bigFrame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(big.Length, bigOptions)];
            Assert.True(Lz4FrameEncoder.TryEncode(big, bigFrame, out int bigLength, bigOptions));
            using var codec = new Lz4FastCodec(new Lz4FastOptions { MaxDegreeOfParallelism = 2, MinimumParallelLength = 1, BlockSize = 65536 });

            var results = new List<string>();
            foreach ((byte[] payload, byte[] frame) in new[] { (works[0].Payload, works[0].Frame), (big, bigFrame.AsSpan(0, bigLength).ToArray()) })
            {
                var output = new byte[payload.Length];
                var encoded = new byte[payload.Length];
                for (int i = 0; i < 20; i++)
                {
                    codec.Decompress(frame, output);
                    codec.TryCompress(payload, encoded, out _);
                }
                Thread.Sleep(100);

                // The process-wide figure includes whatever else the runtime allocates meanwhile (on a loaded machine the
                // thread pool's queue may grow, or a thread start, once); per block it must be nothing. So the least of
                // three measurements is what must stay small: a cost per block would show in each of them.
                const int Calls = 100;
                long decodeThread = long.MaxValue, decodeTotal = long.MaxValue, encodeThread = long.MaxValue, encodeTotal = long.MaxValue;
                var attempts = new List<string>();
                for (int attempt = 0; attempt < 3 && (attempt == 0 || decodeTotal / Calls > 1024 || encodeTotal / Calls > 1024); attempt++)
                {
                    long thread = GC.GetAllocatedBytesForCurrentThread();
                    long total = GC.GetTotalAllocatedBytes(precise: true);
                    for (int i = 0; i < Calls; i++)
                        codec.Decompress(frame, output);
                    long thisDecodeThread = GC.GetAllocatedBytesForCurrentThread() - thread;
                    long thisDecodeTotal = GC.GetTotalAllocatedBytes(precise: true) - total;

                    thread = GC.GetAllocatedBytesForCurrentThread();
                    total = GC.GetTotalAllocatedBytes(precise: true);
                    for (int i = 0; i < Calls; i++)
                        codec.TryCompress(payload, encoded, out _);
                    long thisEncodeThread = GC.GetAllocatedBytesForCurrentThread() - thread;
                    long thisEncodeTotal = GC.GetTotalAllocatedBytes(precise: true) - total;
                    attempts.Add($"{thisDecodeTotal / Calls} / {thisEncodeTotal / Calls} B");
                    decodeThread = Math.Min(decodeThread, thisDecodeThread);
                    encodeThread = Math.Min(encodeThread, thisEncodeThread);
                    decodeTotal = Math.Min(decodeTotal, thisDecodeTotal);
                    encodeTotal = Math.Min(encodeTotal, thisEncodeTotal);
                }

                string line = $"{payload.Length} bytes, {(payload.Length + 65535) / 65536} blocks: decode {decodeThread / Calls} B on the caller, {decodeTotal / Calls} B in the process per call; encode {encodeThread / Calls} B / {encodeTotal / Calls} B (process per call, decode / encode, by measurement: {string.Join(", ", attempts)})";
                results.Add(line);
                _output.WriteLine(line);
                Assert.True(decodeThread / Calls <= 256 && encodeThread / Calls <= 256, line);
                Assert.True(decodeTotal / Calls <= 1024 && encodeTotal / Calls <= 1024, line);
            }
        }
    }
}
