using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Flight.Tests.Support;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Google.Protobuf;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The client's response marshaller on every corpus message, dictionary batches included (Flight 23's reader refuses
    /// those, so the decoded messages are read back as an IPC stream), pass-through byte for byte, and its allocation.
    /// </summary>
    public sealed class MarshallerTests
    {
        private static FlightDataDeserializer Deserializer(Apache.Arrow.Ipc.ICompressionCodecFactory? inner = null) =>
            new FlightDataDeserializer(FlightDataFields.Of(FlightCorpus.Descriptor), new FlightCodecSettings(null, inner ?? new Apache.Arrow.Compression.CompressionCodecFactory(), IpcDecompressingStream.DefaultMaxBodyLength, 0));

        public static IEnumerable<object[]> Streams() => FlightCorpus.StreamData();

        [Theory]
        [MemberData(nameof(Streams))]
        public void Decoded_messages_form_the_stream_the_official_codec_reads(string name)
        {
            string path = FlightCorpus.PathOf(name);
            FlightDataDeserializer deserializer = Deserializer();
            var checker = new FlightStreamChecker("DoGet", decoder: null);
            var decoded = new List<IpcMessageBytes>();
            int compressed = 0;
            foreach (byte[]? payload in FlightCorpus.Payloads(path))
            {
                IMessage message = deserializer.Deserialize(new PayloadContext(payload!));
                checker.Next(message);
                (byte[] header, byte[] body) = FlightCorpus.Fields(message);
                if (!message.ToByteArray().AsSpan().SequenceEqual(payload))
                    compressed++;
                decoded.Add(new IpcMessageBytes(header, body));
            }
            // Read without any codec: every compressed message must have been decoded.
            List<RecordBatch> actual = ArrowData.ReadAll(IpcMessages.Join(decoded), false, new NoCodecs());
            List<RecordBatch> expected = ArrowData.ReadAll(path, new Apache.Arrow.Compression.CompressionCodecFactory());
            ArrowData.AssertSame(expected, actual);
            Assert.True(compressed > 0 || name.Contains("empty", StringComparison.Ordinal), "no message of the stream was decoded");
            ArrowData.DisposeAll(expected);
            ArrowData.DisposeAll(actual);
        }

        [Fact]
        public void Schema_uncompressed_and_empty_header_messages_pass_through_byte_for_byte()
        {
            FlightDataDeserializer deserializer = Deserializer();
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows")));
            byte[] metadataOnly = { 0x1A, 0x03, 1, 2, 3 }; // app_metadata only: no header
            byte[] descriptorOnly = { 0x0A, 0x02, 0x08, 0x01 }; // flight_descriptor { type = PATH }
            byte[] schemaWithMetadata = IpcMessages.FlightData(messages[0].Header, messages[0].Body, new byte[] { 9, 8, 7 });
            byte[] uncompressed = IpcMessages.FlightData(UncompressedBatchHeader(out byte[] body), body, new byte[] { 1 });
            foreach (byte[] payload in new[] { metadataOnly, descriptorOnly, schemaWithMetadata, uncompressed })
            {
                IMessage message = deserializer.Deserialize(new PayloadContext(payload));
                Assert.Null(FlightFailures.Of(message));
                Assert.Equal(payload, message.ToByteArray());
            }
        }

        [Fact]
        public void App_metadata_and_descriptor_ride_along_a_decoded_batch()
        {
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows")));
            byte[] descriptor = { 0x0A, 0x06, 0x08, 0x01, 0x12, 0x02, (byte)'a', (byte)'b' };
            byte[] payload = descriptor.Concat(IpcMessages.FlightData(messages[1].Header, messages[1].Body, new byte[] { 5, 6 })).ToArray();
            IMessage message = Deserializer().Deserialize(new PayloadContext(payload));
            Assert.Null(FlightFailures.Of(message));
            var appMetadata = (ByteString)FlightCorpus.Descriptor.FindFieldByNumber(3).Accessor.GetValue(message);
            var flightDescriptor = (IMessage)FlightCorpus.Descriptor.FindFieldByNumber(1).Accessor.GetValue(message);
            Assert.Equal(new byte[] { 5, 6 }, appMetadata.ToByteArray());
            Assert.Equal(descriptor.AsSpan(2).ToArray(), flightDescriptor.ToByteArray());
            Assert.NotEqual(messages[1].Body.Length, FlightCorpus.Fields(message).Body.Length);
        }

        [Fact]
        public void Managed_allocation_per_message_is_the_decoded_body_plus_a_small_constant()
        {
            string path = Corpus.SharedAvailable ? Corpus.Shared("ipc/pyarrow/numeric.arrows") : Corpus.Committed("ipc/pyarrow/strings.arrows");
            List<byte[]?> payloads = FlightCorpus.Payloads(path);
            FlightDataDeserializer deserializer = Deserializer();
            var context = new PayloadContext(payloads[1]!);
            deserializer.Deserialize(context); // warm: the thread's decoder, pooled arrays, JIT
            // Averaged over several messages: a one-off of the process (a helper thread started again after idling, the
            // thread pool's queue growing while other tests run) is not a cost per message.
            const int Messages = 16;
            IMessage? message = null;
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Messages; i++)
                message = deserializer.Deserialize(context);
            long perMessage = (GC.GetAllocatedBytesForCurrentThread() - before) / Messages;
            (byte[] header, byte[] body) = FlightCorpus.Fields(message!);
            Assert.True(body.Length > 100_000, $"the message decodes to {body.Length} bytes, too few to measure");
            Assert.True(perMessage <= body.Length + 2048, $"{perMessage} bytes allocated per message for a {body.Length}-byte decoded body");
            Assert.True(perMessage >= body.Length, "the decoded body is not counted: the measurement is not of this thread");
        }

        [Fact]
        public void A_declared_size_past_the_frame_bound_is_refused_before_allocation()
        {
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(Corpus.Committed("ipc/rust/strings.arrows")));
            byte[] body = (byte[])messages[1].Body.Clone();
            BitConverter.TryWriteBytes(body.AsSpan(0, 8), 1L << 40);
            IMessage message = Deserializer().Deserialize(new PayloadContext(IpcMessages.FlightData(messages[1].Header, body)));
            var e = Assert.IsType<InvalidDataException>(FlightFailures.Of(message));
            Assert.Contains("declares", e.Message);
            Assert.IsType<Lz4FrameException>(e.InnerException);
        }

        [Fact]
        public void Two_channels_settings_on_one_thread_each_decode_with_their_own()
        {
            // Each channel's marshaller shares the calling thread's decoder: it must be the one its own settings make,
            // whichever channel read on that thread last.
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/strings.arrows")));
            byte[] payload = IpcMessages.FlightData(messages[1].Header, messages[1].Body);
            var strict = new FlightDataDeserializer(FlightDataFields.Of(FlightCorpus.Descriptor), new FlightCodecSettings(null, null, 64, 0));
            FlightDataDeserializer lenient = Deserializer();
            for (int round = 0; round < 3; round++)
            {
                Assert.Null(FlightFailures.Of(lenient.Deserialize(new PayloadContext(payload))));
                // The limit's refusal, which the call's reader turns into ResourceExhausted (ReceiveLimitTests).
                Exception e = Assert.IsAssignableFrom<Exception>(FlightFailures.Of(strict.Deserialize(new PayloadContext(payload))));
                Assert.Contains("64-byte limit", e.Message, StringComparison.Ordinal);
            }
        }

        [Fact]
        public void Two_channels_settings_alternating_on_one_thread_allocate_no_decoder_per_message()
        {
            // Two channels with their own settings, read in turn on one thread: each must find its decoder in the
            // thread's cache, so the allocation beyond the messages themselves is what one channel alone allocates.
            // Small batches, so that a decoder's own allocation stands out against the decoded bodies'.
            List<IpcMessageBytes> messages = IpcMessages.Split(File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/tiny_batches.arrows")));
            var context = new PayloadContext(IpcMessages.FlightData(messages[1].Header, messages[1].Body));
            FlightDataDeserializer first = Deserializer();
            FlightDataDeserializer second = Deserializer();
            first.Deserialize(context); // warm: JIT, pooled arrays, the thread's decoders
            second.Deserialize(context);
            const int Rounds = 200;
            // The least of five runs each: other tests' threads taking the decode's pooled helpers only add allocation
            // here (a replaced job), seen once beside the whole project; a decoder per message adds it to every run.
            long alone = long.MaxValue, alternating = long.MaxValue;
            for (int run = 0; run < 5; run++)
            {
                alone = Math.Min(alone, Allocated(first, first));
                alternating = Math.Min(alternating, Allocated(first, second));
            }
            Assert.True(alternating <= alone + 1024, $"alternating two settings allocated {alternating} bytes over {2 * Rounds} messages, one settings alone {alone}");

            long Allocated(FlightDataDeserializer a, FlightDataDeserializer b)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < Rounds; i++)
                {
                    Assert.Null(FlightFailures.Of(a.Deserialize(context)));
                    Assert.Null(FlightFailures.Of(b.Deserialize(context)));
                }
                return GC.GetAllocatedBytesForCurrentThread() - before;
            }
        }

        /// <summary>A record batch message with no compression, written by Arrow .NET, and its body.</summary>
        private static byte[] UncompressedBatchHeader(out byte[] body)
        {
            using RecordBatch batch = TestTables.Realistic(100, 1);
            using var stream = new MemoryStream();
            using (var writer = new ArrowStreamWriter(stream, batch.Schema, leaveOpen: true))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            IpcMessageBytes message = IpcMessages.Split(stream.ToArray())[1];
            body = message.Body;
            return message.Header;
        }

        /// <summary>A factory that refuses every codec: what it reads was decoded before.</summary>
        private sealed class NoCodecs : ICompressionCodecFactory
        {
            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) => throw new InvalidOperationException("a message reached the reader compressed");

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) => CreateCodec(compressionCodecType);
        }
    }
}
