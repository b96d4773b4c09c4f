using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Runs in a child process (see <see cref="TestProgram"/>): parallel decodes and encodes at every core, sampling the
    /// process's threads meanwhile, then waits for the helper threads to exit idle, and prints what it saw as
    /// <c>key=value</c> lines for <c>HelperThreadBoundTests</c> to check.
    /// </summary>
    internal static class HelperThreadChild
    {
        public const string Switch = "--helper-thread-child";

        /// <summary>How a helper thread's name starts in /proc (Linux keeps the first 15 bytes of a thread name).</summary>
        public const string HelperNamePrefix = "ArrowLz4Fast h";

        public static int Run()
        {
            var options = new Lz4FrameEncoderOptions(65536, 0, contentChecksum: true, blockChecksum: false, contentSize: false, new Lz4Parallelism(-1, 1));
            var sequential = new Lz4FrameEncoderOptions(65536, 0, contentChecksum: true, blockChecksum: false, contentSize: false, Lz4Parallelism.Sequential);
            byte[] payload = TestData.Mixed(8 << 20, 64);
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length, sequential)];
            if (!Lz4FrameEncoder.TryEncode(payload, frame, out int frameLength, sequential))
                return Fail("the sequential encode failed");
            frame = frame.AsSpan(0, frameLength).ToArray();
            var output = new byte[payload.Length];
            var encoded = new byte[frame.Length + 1024];

            int maxThreads = 0, maxHelpers = 0, maxPool = 0, maxOthers = 0;
            bool stop = false;
            var sampler = new Thread(() =>
            {
                while (!Volatile.Read(ref stop))
                {
                    int threads = ThreadCount(), helpers = HelperThreads(), pool = ThreadPool.ThreadCount;
                    maxThreads = Math.Max(maxThreads, threads);
                    maxHelpers = Math.Max(maxHelpers, helpers);
                    maxPool = Math.Max(maxPool, pool);
                    maxOthers = Math.Max(maxOthers, threads - helpers - pool);
                    Thread.Sleep(1);
                }
            }) { IsBackground = true, Name = "sampler" };
            sampler.Start();
            Thread.Sleep(50);
            int baseline = ThreadCount();
            int baselinePool = ThreadPool.ThreadCount;

            var decodeOptions = new Lz4FrameDecoderOptions(verifyChecksums: true, new Lz4Parallelism(-1, 1));
            for (int round = 0; round < 40; round++)
            {
                if (!Lz4FrameDecoder.TryDecode(frame, output, out int written, decodeOptions) || written != payload.Length || !output.AsSpan().SequenceEqual(payload))
                    return Fail($"parallel decode {round} differs");
                if (!Lz4FrameEncoder.TryEncode(payload, encoded, out int length, options) || !encoded.AsSpan(0, length).SequenceEqual(frame))
                    return Fail($"parallel encode {round} differs");
            }
            Volatile.Write(ref stop, true);
            sampler.Join();
            int helpersAfterWork = HelperThreads();

            var idle = Stopwatch.StartNew();
            while (HelperThreads() > 0 && idle.Elapsed < TimeSpan.FromSeconds(60))
                Thread.Sleep(100);
            int helpersAfterIdle = HelperThreads();
            int threadsAfterIdle = ThreadCount();
            int poolAfterIdle = ThreadPool.ThreadCount;

            // Helpers that exited idle are replaced by the next parallel calls, within the bound again.
            for (int round = 0; round < 5; round++)
            {
                if (!Lz4FrameDecoder.TryDecode(frame, output, out int written, decodeOptions) || written != payload.Length || !output.AsSpan().SequenceEqual(payload))
                    return Fail($"parallel decode {round} after the idle exit differs");
                if (!Lz4FrameEncoder.TryEncode(payload, encoded, out int length, options) || !encoded.AsSpan(0, length).SequenceEqual(frame))
                    return Fail($"parallel encode {round} after the idle exit differs");
            }
            int helpersAfterRestart = HelperThreads();

            Console.WriteLine($"processors={Environment.ProcessorCount}");
            Console.WriteLine($"namesReadable={(Directory.Exists("/proc/self/task") ? 1 : 0)}");
            Console.WriteLine($"baselineThreads={baseline}");
            Console.WriteLine($"maxThreads={maxThreads}");
            Console.WriteLine($"maxHelpers={maxHelpers}");
            Console.WriteLine($"baselinePoolThreads={baselinePool}");
            Console.WriteLine($"maxPoolThreads={maxPool}");
            Console.WriteLine($"maxOtherThreads={maxOthers}");
            Console.WriteLine($"helpersAfterWork={helpersAfterWork}");
            Console.WriteLine($"helpersAfterIdle={helpersAfterIdle}");
            Console.WriteLine($"idleMilliseconds={(long)idle.Elapsed.TotalMilliseconds}");
            Console.WriteLine($"threadsAfterIdle={threadsAfterIdle}");
            Console.WriteLine($"poolThreadsAfterIdle={poolAfterIdle}");
            Console.WriteLine($"helpersAfterRestart={helpersAfterRestart}");
            return 0;
        }

        private static int Fail(string message)
        {
            Console.Error.WriteLine(message);
            return 1;
        }

        private static int ThreadCount()
        {
            using var process = Process.GetCurrentProcess();
            return process.Threads.Count;
        }

        /// <summary>Threads named as the package's helpers, read from /proc (0 where there is none).</summary>
        private static int HelperThreads()
        {
            if (!Directory.Exists("/proc/self/task"))
                return 0;
            int count = 0;
            foreach (string task in Directory.GetDirectories("/proc/self/task"))
            {
                try
                {
                    if (File.ReadAllText(Path.Combine(task, "comm")).StartsWith(HelperNamePrefix, StringComparison.Ordinal))
                        count++;
                }
                catch (IOException)
                {
                    // The thread exited between the listing and the read.
                }
            }
            return count;
        }
    }
}
