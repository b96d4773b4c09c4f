using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Google.Protobuf;
using Grpc.Core;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The pipelined writer's contract on a write that fails after WriteAsync returned: the failure comes out of the next
    /// call, and a call disposed without one leaves no faulted task behind. The inner stream is a stand-in whose write
    /// the test fails when it chooses, which a real gRPC call cannot be made to do at a chosen moment.
    /// </summary>
    public sealed class CompressingStreamWriterTests
    {
        private static readonly Lz4FastOptions Codec = new();

        [Fact]
        public async Task A_failed_last_write_is_thrown_by_CompleteAsync()
        {
            var inner = new PendingWriter();
            var writer = new CompressingStreamWriter<IMessage>(inner, Settings());
            await writer.WriteAsync(Batch());
            inner.Last.SetException(new IOException("the stream broke"));
            var e = await Assert.ThrowsAsync<IOException>(writer.CompleteAsync);
            Assert.Equal("the stream broke", e.Message);
            Assert.False(inner.Completed, "the call was completed after a failed write");
        }

        [Fact]
        public void A_failed_last_write_of_an_abandoned_writer_is_not_left_to_the_finalizer()
        {
            string marker = "abandoned write " + Guid.NewGuid().ToString("N");
            int unobserved = 0;
            void OnUnobserved(object? sender, UnobservedTaskExceptionEventArgs args)
            {
                foreach (Exception e in args.Exception.Flatten().InnerExceptions)
                {
                    if (e.Message == marker)
                        Interlocked.Increment(ref unobserved);
                }
            }
            TaskScheduler.UnobservedTaskException += OnUnobserved;
            try
            {
                for (int i = 0; i < 8; i++)
                    WriteAndAbandon(marker);
                for (int i = 0; i < 3; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }
            }
            finally
            {
                TaskScheduler.UnobservedTaskException -= OnUnobserved;
            }
            Assert.Equal(0, Volatile.Read(ref unobserved));
        }

        /// <summary>A client that writes, sees its write fail later and drops the call: nothing here stays reachable.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void WriteAndAbandon(string marker)
        {
            var inner = new PendingWriter();
            var writer = new CompressingStreamWriter<IMessage>(inner, Settings());
            Assert.True(writer.WriteAsync(Batch()).IsCompleted, "the first write should return before it completes");
            inner.Last.SetException(new IOException(marker));
        }

        private static FlightCodecSettings Settings() => new FlightCodecSettings(Codec, null, IpcDecompressingStream.DefaultMaxBodyLength, 0);

        private static IMessage Batch()
        {
            List<byte[]?> payloads = FlightCorpus.Payloads(Corpus.Committed("ipc/java/tiny_batches.arrows"));
            return FlightCorpus.Parse(payloads[1]!);
        }

        /// <summary>A response or upload stream whose writes complete only when the test says so.</summary>
        private sealed class PendingWriter : IClientStreamWriter<IMessage>
        {
            public TaskCompletionSource<bool> Last { get; private set; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

            public bool Completed { get; private set; }

            public WriteOptions? WriteOptions { get; set; }

            public Task WriteAsync(IMessage message)
            {
                Last = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                return Last.Task;
            }

            public Task CompleteAsync()
            {
                Completed = true;
                return Task.CompletedTask;
            }
        }
    }
}
