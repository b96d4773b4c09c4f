using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using System.IO.Compression;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Every path's instruments, read with a <see cref="MeterListener"/> on real corpus streams: messages, buffers, bytes
    /// in and bytes out, tagged with the path. The expected counts come from the stream's own framing (the message
    /// lengths and buffer prefixes, read apart from the package's reader). Each test counts only the measurements
    /// recorded on its own thread, so it runs beside the rest of the suite.
    /// </summary>
    public class PathMetricsTests
    {
        private const string Corpus1 = "ipc/pyarrow/nested_dict_minsavings.arrows";

        [Fact]
        public void The_decompressing_stream_counts_messages_frames_and_body_bytes_in_and_out()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Corpus1));
            Expected expected = Expected.Of(stream);
            var totals = new Dictionary<string, long>();
            using (Listen(totals))
            {
                // One thread, so every measurement is on this one.
                List<RecordBatch> batches = IpcWrapped.ReadAll(stream, IpcWrapped.Options(1), SlabMemoryAllocator.Shared, null);
                ArrowData.DisposeAll(batches);
            }

            Assert.Equal(expected.Messages, Get(totals, ArrowLz4FastMetrics.DecompressMessagesCounterName, "ipc_stream"));
            Assert.Equal(expected.Frames, Get(totals, ArrowLz4FastMetrics.DecompressCounterName, "ipc_stream"));
            Assert.Equal(expected.CompressedBytes, Get(totals, ArrowLz4FastMetrics.DecompressInputBytesCounterName, "ipc_stream"));
            Assert.Equal(expected.DecodedBytes, Get(totals, ArrowLz4FastMetrics.DecompressedBytesCounterName, "ipc_stream"));
            Assert.True(expected.DecodedBytes > expected.CompressedBytes);
        }

        [Fact]
        public void The_compressing_stream_counts_messages_frames_raw_buffers_and_bytes_in_and_out()
        {
            byte[] uncompressed = Uncompressed(Corpus1);
            var totals = new Dictionary<string, long>();
            using var output = new MemoryStream();
            using (Listen(totals))
            {
                using var compressing = new IpcCompressingStream(output, IpcWrapped.Options(1), leaveOpen: true, minSpaceSavings: 0.5);
                compressing.Write(uncompressed, 0, uncompressed.Length);
            }
            // A batch none of whose buffers saves enough goes as it was: counted, with its body's length in and out.
            byte[] compressed = output.ToArray();
            Expected written = Expected.Of(compressed);
            List<IpcMutator.Message> inputBatches = IpcMutator.Messages(uncompressed).Where(m => m.BodyLength > 0).ToList();
            long outputBodies = IpcMutator.Messages(compressed).Sum(m => m.BodyLength);

            Assert.Equal(inputBatches.Count, Get(totals, ArrowLz4FastMetrics.CompressMessagesCounterName, "ipc_stream"));
            Assert.Equal(written.Frames, Get(totals, ArrowLz4FastMetrics.CompressCounterName, "ipc_stream"));
            Assert.Equal(written.Raw, Get(totals, ArrowLz4FastMetrics.CompressDeclinedCounterName, "ipc_stream"));
            Assert.True(written.Raw > 0 && written.Frames > 0);
            Assert.Equal(inputBatches.Sum(m => m.BodyLength), Get(totals, ArrowLz4FastMetrics.CompressInputBytesCounterName, "ipc_stream"));
            Assert.Equal(outputBodies, Get(totals, ArrowLz4FastMetrics.CompressOutputBytesCounterName, "ipc_stream"));
        }

        [Fact]
        public void The_flight_message_compressor_and_decoder_count_as_the_flight_path()
        {
            // What the interceptors call for each FlightData: one message's metadata and body at a time.
            List<IpcMessages.Message> messages = IpcMessages.Uncompressed(Corpus.Committed("ipc/pyarrow/strings.arrows"));
            var totals = new Dictionary<string, long>();
            long bodies = 0, compressedBodies = 0, decoded = 0;
            int batches = 0;
            using (Listen(totals))
            {
                var decoder = new IpcMessageDecoder(IpcWrapped.Options(1), null, IpcDecompressingStream.DefaultMaxBodyLength);
                foreach (IpcMessages.Message message in messages)
                {
                    if (!IpcMessageCompressor.TryCompress(message.Metadata, message.Body, IpcWrapped.Options(1), 0, out ReadOnlyMemory<byte> metadata, out ReadOnlyMemory<byte> body))
                        continue;
                    batches++;
                    bodies += message.Body.Length;
                    compressedBodies += body.Length;
                    Assert.True(decoder.TryDecode(metadata.Span, body, out _, out byte[] output));
                    decoded += output.Length;
                }
                decoder.Release();
            }

            Assert.True(batches > 0);
            Assert.Equal(batches, Get(totals, ArrowLz4FastMetrics.CompressMessagesCounterName, "flight"));
            Assert.Equal(bodies, Get(totals, ArrowLz4FastMetrics.CompressInputBytesCounterName, "flight"));
            Assert.Equal(compressedBodies, Get(totals, ArrowLz4FastMetrics.CompressOutputBytesCounterName, "flight"));
            Assert.Equal(batches, Get(totals, ArrowLz4FastMetrics.DecompressMessagesCounterName, "flight"));
            Assert.Equal(compressedBodies, Get(totals, ArrowLz4FastMetrics.DecompressInputBytesCounterName, "flight"));
            Assert.Equal(decoded, Get(totals, ArrowLz4FastMetrics.DecompressedBytesCounterName, "flight"));
            Assert.True(Get(totals, ArrowLz4FastMetrics.DecompressCounterName, "flight") > 0);
            Assert.True(Get(totals, ArrowLz4FastMetrics.CompressCounterName, "flight") > 0);
        }

        [Fact]
        public void The_framed_reader_counts_the_compressed_input_the_ipc_stream_it_serves_and_its_messages()
        {
            byte[] ipc = Uncompressed("ipc/pyarrow/strings.arrows");
            using var framed = new MemoryStream();
            using (var writer = new Lz4FrameStream(framed, CompressionMode.Compress, leaveOpen: true))
                writer.Write(ipc, 0, ipc.Length);
            int messages = IpcMutator.Messages(ipc).Count;

            var totals = new Dictionary<string, long>();
            using (Listen(totals))
            {
                using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(framed.ToArray()));
                ArrowData.DisposeAll(ArrowData.ReadAll(reader));
            }

            Assert.Equal(framed.Length, Get(totals, ArrowLz4FastMetrics.DecompressInputBytesCounterName, "framed"));
            // Arrow reads up to the end-of-stream marker's 8 bytes; the frame's end is drained past it.
            Assert.Equal(ipc.Length, Get(totals, ArrowLz4FastMetrics.DecompressedBytesCounterName, "framed"));
            Assert.Equal(messages, Get(totals, ArrowLz4FastMetrics.DecompressMessagesCounterName, "framed"));
        }

        [Fact]
        public void The_codec_counts_frame_bytes_in_and_out_on_both_sides()
        {
            List<(byte[] Frame, int Length, string Sha256)> buffers = CorpusBuffers.Of("ipc/pyarrow/strings.arrows");
            var totals = new Dictionary<string, long>();
            byte[] compressible = new byte[100_000];
            byte[] noise = new byte[50_000];
            new Random(5).NextBytes(noise);
            int written;
            using (Listen(totals))
            {
                using var codec = new Lz4FastCodec();
                foreach ((byte[] frame, int length, _) in buffers)
                    codec.Decompress(frame, new byte[length]);
                Assert.True(codec.TryCompress(compressible, new byte[compressible.Length], out written));
                Assert.False(codec.TryCompress(noise, new byte[noise.Length], out _));
            }

            Assert.Equal(buffers.Sum(b => (long)b.Frame.Length), Get(totals, ArrowLz4FastMetrics.DecompressInputBytesCounterName, "direct"));
            Assert.Equal(buffers.Sum(b => (long)b.Length), Get(totals, ArrowLz4FastMetrics.DecompressedBytesCounterName, "direct"));
            Assert.Equal(1, Get(totals, ArrowLz4FastMetrics.CompressCounterName, "codec"));
            Assert.Equal(1, Get(totals, ArrowLz4FastMetrics.CompressDeclinedCounterName, "codec"));
            Assert.Equal(150_000, Get(totals, ArrowLz4FastMetrics.CompressInputBytesCounterName, "codec"));
            Assert.Equal(written + 50_000, Get(totals, ArrowLz4FastMetrics.CompressOutputBytesCounterName, "codec"));
        }

        /// <summary>What a compressed stream's framing says: its LZ4 batch messages, their frames, raw buffers, and body lengths compressed and decoded.</summary>
        private readonly record struct Expected(long Messages, long Frames, long Raw, long CompressedBytes, long DecodedBytes)
        {
            public static Expected Of(byte[] stream)
            {
                long messages = 0, frames = 0, raw = 0, compressed = 0, decoded = 0;
                foreach (IpcMutator.Message m in IpcMutator.Messages(stream).Where(m => m.Lz4))
                {
                    byte[] metadata = stream.AsSpan(m.Metadata, m.MetadataLength).ToArray();
                    messages++;
                    compressed += m.BodyLength;
                    long end = 0;
                    foreach ((long offset, long length) in IpcMessages.Buffers(metadata))
                    {
                        long at = (end + 7) & ~7L;
                        if (length == 0)
                        {
                            end = at;
                            continue;
                        }
                        long prefix = BinaryPrimitives.ReadInt64LittleEndian(stream.AsSpan(m.Body + (int)offset));
                        if (prefix == -1)
                            raw++;
                        else if (length > 8)
                            frames++;
                        end = at + (prefix == -1 ? length - 8 : prefix);
                    }
                    decoded += (end + 7) & ~7L;
                }
                return new Expected(messages, frames, raw, compressed, decoded);
            }
        }

        private static byte[] Uncompressed(string relative) =>
            IpcWrapped.Drain(File.ReadAllBytes(Corpus.Committed(relative)), IpcWrapped.Options(1), new[] { 0 });

        private static long Get(Dictionary<string, long> totals, string instrument, string path) =>
            totals.GetValueOrDefault($"{instrument}|{ArrowLz4FastMetrics.PathTag}={path}");

        /// <summary>Sums the package's measurements recorded on the calling thread, keyed by instrument and tags.</summary>
        private static MeterListener Listen(Dictionary<string, long> totals)
        {
            var listener = new MeterListener();
            listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == ArrowLz4FastMetrics.MeterName)
                    l.EnableMeasurementEvents(instrument);
            };
            int thread = Environment.CurrentManagedThreadId;
            listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
            {
                if (Environment.CurrentManagedThreadId != thread)
                    return;
                string key = instrument.Name;
                foreach (KeyValuePair<string, object?> tag in tags)
                    key += $"|{tag.Key}={tag.Value}";
                totals[key] = totals.GetValueOrDefault(key) + value;
            });
            listener.Start();
            return listener;
        }
    }
}
