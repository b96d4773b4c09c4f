using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The codec's counters. A listener sees every measurement of the process, so each test counts only those recorded
    /// on its own thread (instruments call back on the recording thread), and runs beside the rest of the suite.
    /// </summary>
    public class MetricsTests
    {
        [Fact]
        public void Direct_fallback_and_byte_counters_report_what_happened()
        {
            List<(byte[] Frame, int Length, string Sha256)> buffers = CorpusBuffers.Of("ipc/pyarrow/strings.arrows");
            var totals = new Dictionary<string, long>();
            using MeterListener listener = ListenOnThisThread(totals, withTags: true);

            using var codec = new Lz4FastCodec();
            long bytes = 0;
            foreach ((byte[] frame, int length, _) in buffers)
                bytes += codec.Decompress(frame, new byte[length]);
            Assert.Throws<NotSupportedException>(() => codec.Decompress(File.ReadAllBytes(Corpus.Committed("malformed/dict_id_present.lz4")), new byte[1 << 20]));

            using var k4os = new Lz4FastCodec(new Lz4FastOptions { UseK4osDecoder = true });
            (byte[] first, int firstLength, _) = buffers[0];
            k4os.Decompress(first, new byte[firstLength]);

            Assert.Equal(buffers.Count, totals.GetValueOrDefault($"{ArrowLz4FastMetrics.DecompressCounterName}|path=direct"));
            Assert.Equal(bytes, totals.GetValueOrDefault($"{ArrowLz4FastMetrics.DecompressedBytesCounterName}|path=direct"));
            Assert.Equal(1, totals.GetValueOrDefault($"{ArrowLz4FastMetrics.DecompressCounterName}|path=k4os"));
            Assert.Equal(firstLength, totals.GetValueOrDefault($"{ArrowLz4FastMetrics.DecompressedBytesCounterName}|path=k4os"));
            Assert.Equal(1, totals.GetValueOrDefault($"{ArrowLz4FastMetrics.DeclinedDecompressCounterName}|reason=dictionary_id"));
        }

        [Fact]
        public void The_writer_counts_frames_and_buffers_left_raw()
        {
            var totals = new Dictionary<string, long>();
            using MeterListener listener = ListenOnThisThread(totals, withTags: false);

            using var codec = new Lz4FastCodec();
            byte[] compressible = new byte[100_000];
            byte[] noise = new byte[100_000];
            new Random(5).NextBytes(noise);
            Assert.True(codec.TryCompress(compressible, new byte[compressible.Length], out _));
            Assert.False(codec.TryCompress(noise, new byte[noise.Length], out _));

            Assert.Equal(1, totals.GetValueOrDefault(ArrowLz4FastMetrics.CompressCounterName));
            Assert.Equal(1, totals.GetValueOrDefault(ArrowLz4FastMetrics.CompressDeclinedCounterName));
        }

        /// <summary>
        /// Sums the package's measurements recorded on the calling thread into <paramref name="totals"/>, keyed by
        /// instrument name (and <c>|tag=value</c> for each tag when <paramref name="withTags"/>).
        /// </summary>
        private static MeterListener ListenOnThisThread(Dictionary<string, long> totals, bool withTags)
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
                if (withTags)
                {
                    foreach (KeyValuePair<string, object?> tag in tags)
                        key += $"|{tag.Key}={tag.Value}";
                }
                totals[key] = totals.GetValueOrDefault(key) + value;
            });
            listener.Start();
            return listener;
        }
    }
}
