using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Tests.Support;
using Google.Protobuf;
using Grpc.Core;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The compressing stream writer's pooled output: the bytes gRPC serializes are those of the message compressed into
    /// new arrays, a message's arrays stay untouched until its inner write completes, and compressing a message allocates
    /// a small constant, not its body, on every path. The inner streams serialize each message as gRPC does, inside
    /// WriteAsync (grpc-dotnet's HttpContentClientStreamWriter and HttpContextStreamWriter), or when the test completes it.
    /// </summary>
    public sealed class PooledOutputTests
    {
        private static readonly Lz4FastOptions Codec = new();

        public static IEnumerable<object[]> Streams() => FlightCorpus.StreamData().Where(d => !((string)d[0]).Contains("zstd", StringComparison.Ordinal));

        [Theory]
        [MemberData(nameof(Streams))]
        public Task Serialized_messages_are_the_compressing_streams_messages_byte_for_byte(string name) => Typed(nameof(SameBytes), name);

        private static async Task SameBytes<T>(string name)
            where T : class, IMessage
        {
            // IpcCompressingStream runs the same engine into its own arrays (new or kept per stream, never pooled here)
            // and writes the same metadata and bodies, framed as an IPC stream: the oracle for every serialized message.
            byte[] plain = Uncompressed(FlightCorpus.PathOf(name));
            List<IpcMessageBytes> messages = IpcMessages.Split(plain);
            var inner = new SerializingWriter<T> { Keep = true };
            var writer = new CompressingStreamWriter<T>(inner, Settings());
            foreach (IpcMessageBytes m in messages)
                await writer.WriteAsync(Message<T>(IpcMessages.FlightData(m.Header, m.Body)));
            await writer.CompleteAsync();

            using var expected = new MemoryStream();
            using (var compressing = new IpcCompressingStream(expected, Codec, leaveOpen: true))
                compressing.Write(plain, 0, plain.Length);
            List<IpcMessageBytes> sent = inner.Payloads.Select(FlightCorpus.Parse).Select(FlightCorpus.Fields).Select(f => new IpcMessageBytes(f.Header, f.Body)).ToList();
            byte[] actual = IpcMessages.Join(sent);
            int same = expected.ToArray().AsSpan().CommonPrefixLength(actual);
            Assert.True(same == actual.Length && same == expected.Length, $"the messages differ from byte {same} of {expected.Length} ({actual.Length} sent)");

            int compressed = messages.Where((m, i) => !inner.Payloads[i].AsSpan().SequenceEqual(IpcMessages.FlightData(m.Header, m.Body))).Count();
            bool hasBatches = messages.Any(m => m.Body.Length > 0);
            Assert.True(compressed > 0 || !hasBatches || name.Contains("incompressible", StringComparison.Ordinal), "no message was compressed");
        }

        [Fact]
        public Task A_message_is_not_overwritten_before_its_inner_write_completes() => Typed(nameof(NotOverwritten));

        private static async Task NotOverwritten<T>()
            where T : class, IMessage
        {
            // Batches of one shape, so that the next message's arrays come from the pool's bucket this one's came from:
            // given back too early, they would hold the next message when this one is serialized. The inner write
            // completes on the test's thread, where the pool hands back the array returned last.
            List<IpcMessageBytes> messages = IpcMessages.Split(Uncompressed(Corpus.Committed("ipc/java/tiny_batches.arrows"))).Where(m => m.Body.Length > 0).ToList();
            Assert.True(messages.Count >= 8, $"{messages.Count} batches");
            var inner = new LateWriter<T>();
            var writer = new CompressingStreamWriter<T>(inner, Settings());
            for (int i = 0; i < messages.Count; i++)
            {
                // Compresses this message while the previous one's write is pending, then completes that write.
                Task write = writer.WriteAsync(Message<T>(IpcMessages.FlightData(messages[i].Header, messages[i].Body)));
                if (i > 0)
                    inner.CompleteOldest();
                await write;
            }
            inner.CompleteOldest();
            await writer.CompleteAsync();
            Assert.Equal(messages.Count, inner.Written);
            Assert.True(inner.Changed.Count == 0, $"{inner.Changed.Count} of {messages.Count} messages changed between their write and its completion, the first {inner.Changed.FirstOrDefault()}");
        }

        [Fact]
        public Task Managed_allocation_per_message_is_a_small_constant_not_the_compressed_body() => Typed(nameof(AllocationPerMessage));

        private static async Task AllocationPerMessage<T>()
            where T : class, IMessage
        {
            IpcMessageBytes batch = Largest(Corpus.SharedAvailable ? Corpus.Shared("ipc/pyarrow/numeric.arrows") : Corpus.Committed("ipc/pyarrow/strings.arrows"));
            T message = Message<T>(IpcMessages.FlightData(batch.Header, batch.Body));
            var inner = new SerializingWriter<T>();
            var writer = new CompressingStreamWriter<T>(inner, Settings());
            for (int i = 0; i < 4; i++)
                await writer.WriteAsync(message);    // warm: JIT, the pool's arrays, the thread's compressor

            // The least of three runs: a gen 2 collection may trim the pool once (its arrays then come anew), never each run.
            const int Messages = 32;
            long perMessage = long.MaxValue;
            for (int run = 0; run < 3; run++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < Messages; i++)
                    await writer.WriteAsync(message);
                perMessage = Math.Min(perMessage, (GC.GetAllocatedBytesForCurrentThread() - before) / Messages);
            }
            await writer.CompleteAsync();

            Assert.True(inner.LastLength < batch.Body.Length * 0.9, $"the batch compresses to {inner.LastLength} bytes from {batch.Body.Length}: not compressed");
            Assert.True(inner.LastLength > 100_000, $"{inner.LastLength} bytes a message, too few to measure");
            Assert.True(perMessage <= 1024, $"{perMessage} bytes allocated per message of {inner.LastLength} bytes on the wire");
        }

        [Fact]
        public Task A_failed_or_cancelled_write_and_a_message_never_handed_over_give_their_arrays_back() => Typed(nameof(ArraysBackOnFailure));

        private static async Task ArraysBackOnFailure<T>()
            where T : class, IMessage
        {
            // Each round: a write whose inner write fails (or is cancelled), then one refused because of it, whose
            // message gRPC never sees; then a handler that fails with its write pending. Arrays kept on any of these
            // paths would be allocated anew each round.
            IpcMessageBytes batch = Largest(Corpus.SharedAvailable ? Corpus.Shared("ipc/pyarrow/numeric.arrows") : Corpus.Committed("ipc/pyarrow/strings.arrows"));
            T message = Message<T>(IpcMessages.FlightData(batch.Header, batch.Body));
            var inner = new FailingWriter<T>();
            for (int i = 0; i < 4; i++)
                await Round(i);    // warm

            const int Rounds = 16;
            long perRound = long.MaxValue;
            for (int run = 0; run < 3; run++)    // the least of three, as above
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < Rounds; i++)
                    await Round(i);
                perRound = Math.Min(perRound, (GC.GetAllocatedBytesForCurrentThread() - before) / Rounds);
            }
            Assert.True(perRound <= 16_384, $"{perRound} bytes allocated per round of three compressed messages of a {batch.Body.Length}-byte body");

            async Task Round(int i)
            {
                inner.Cancel = i % 2 == 0;
                var writer = new CompressingStreamWriter<T>(inner, Settings());
                await writer.WriteAsync(message);
                await Assert.ThrowsAnyAsync<Exception>(() => writer.WriteAsync(message));

                // The handler fails with its last write pending: RunAsync waits for it, then the arrays go back.
                var handler = new InvalidOperationException("the handler failed");
                var late = new LateWriter<T> { Check = false };
                var server = new CompressingStreamWriter<T>(late, Settings());
                Task run = server.RunAsync(async () =>
                {
                    await server.WriteAsync(message);
                    throw handler;
                });
                Assert.False(run.IsCompleted, "the handler's call ended under its last write");
                late.CompleteOldest();
                Assert.Same(handler, await Assert.ThrowsAsync<InvalidOperationException>(() => run));
            }
        }

        /// <summary>
        /// Runs a test over Flight's own FlightData type, as gRPC's methods give it: the writer then copies a message with
        /// its Clone, as in a call, not by the reparse it falls back to when T is not IDeepCloneable&lt;T&gt; (IMessage).
        /// </summary>
        private static Task Typed(string method, params object[] arguments) =>
            (Task)typeof(PooledOutputTests).GetMethod(method, BindingFlags.NonPublic | BindingFlags.Static)!
                .MakeGenericMethod(FlightCorpus.FlightDataType).Invoke(null, arguments)!;

        private static T Message<T>(byte[] payload)
            where T : class, IMessage => (T)FlightCorpus.Parse(payload);

        private static FlightCodecSettings Settings() => new FlightCodecSettings(Codec, null, IpcDecompressingStream.DefaultMaxBodyLength, 0);

        /// <summary>The IPC stream with every body decompressed (a corpus stream's batches are mostly LZ4 already).</summary>
        private static byte[] Uncompressed(string path)
        {
            using var decompressing = new IpcDecompressingStream(new MemoryStream(File.ReadAllBytes(path), writable: false));
            using var plain = new MemoryStream();
            decompressing.CopyTo(plain);
            return plain.ToArray();
        }

        private static IpcMessageBytes Largest(string path) => IpcMessages.Split(Uncompressed(path)).OrderByDescending(m => m.Body.Length).First();

        /// <summary>Serializes each message inside WriteAsync, as gRPC does, into one reused buffer (or keeps a copy).</summary>
        private sealed class SerializingWriter<T> : IClientStreamWriter<T>
            where T : class, IMessage
        {
            private byte[] _buffer = Array.Empty<byte>();

            public bool Keep { get; init; }

            public List<byte[]> Payloads { get; } = new();

            public int LastLength { get; private set; }

            public WriteOptions? WriteOptions { get; set; }

            public Task WriteAsync(T message)
            {
                int length = message.CalculateSize();
                if (_buffer.Length < length)
                    _buffer = new byte[length * 2];
                message.WriteTo(_buffer.AsSpan(0, length));
                LastLength = length;
                if (Keep)
                    Payloads.Add(_buffer.AsSpan(0, length).ToArray());
                return Task.CompletedTask;
            }

            public Task CompleteAsync() => Task.CompletedTask;
        }

        /// <summary>
        /// Serializes a message when the test completes its write and, when it checks, says whether the message changed
        /// since WriteAsync. Its tasks run their continuations on the completing thread, the test's.
        /// </summary>
        private sealed class LateWriter<T> : IClientStreamWriter<T>
            where T : class, IMessage
        {
            private readonly Queue<(T Message, byte[]? AtWrite, TaskCompletionSource<bool> Done)> _writes = new();

            public bool Check { get; init; } = true;

            public int Written { get; private set; }

            public List<int> Changed { get; } = new();

            public WriteOptions? WriteOptions { get; set; }

            public Task WriteAsync(T message)
            {
                var done = new TaskCompletionSource<bool>();
                _writes.Enqueue((message, Check ? message.ToByteArray() : null, done));
                return done.Task;
            }

            public void CompleteOldest()
            {
                (T message, byte[]? atWrite, TaskCompletionSource<bool> done) = _writes.Dequeue();
                if (atWrite is not null && !message.ToByteArray().AsSpan().SequenceEqual(atWrite))
                    Changed.Add(Written);
                Written++;
                done.SetResult(true);
            }

            public Task CompleteAsync() => Task.CompletedTask;
        }

        /// <summary>Fails every write, or cancels it, without serializing.</summary>
        private sealed class FailingWriter<T> : IClientStreamWriter<T>
            where T : class, IMessage
        {
            public bool Cancel { get; set; }

            public WriteOptions? WriteOptions { get; set; }

            public Task WriteAsync(T message) =>
                Cancel ? Task.FromCanceled(new System.Threading.CancellationToken(true)) : Task.FromException(new IOException("the stream broke"));

            public Task CompleteAsync() => Task.CompletedTask;
        }
    }
}
