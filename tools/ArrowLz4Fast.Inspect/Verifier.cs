using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using K4os.Compression.LZ4.Streams;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>
    /// --verify: decodes every LZ4 buffer with ArrowLz4Fast's codec and with the official path (K4os LZ4Frame.Decode
    /// + ReadManyBytes, what Apache.Arrow.Compression does) and compares them; then reads the whole input with Arrow.
    /// A buffer either decoder rejects, or on which they disagree, is corrupt: the official decoder accepting a frame
    /// (it verifies no checksums) does not make it sound.
    /// </summary>
    internal static class Verifier
    {
        public static void VerifyBuffer(BufferReport report, ReadOnlyMemory<byte> file)
        {
            if (report.Path is not (BufferPath.Direct or BufferPath.DeclinedDictionary))
                return;
            ReadOnlyMemory<byte> frame = file.Slice((int)report.AbsoluteOffset + 8, (int)report.Buffer.Length - 8);
            var ours = new byte[report.UncompressedLength];
            var official = new byte[report.UncompressedLength];
            string? oursError = null, officialError = null;
            Exception? oursException = null;
            int oursWritten = -1, officialWritten = -1;
            try
            {
                using var codec = new Lz4FastCodec();
                oursWritten = codec.Decompress(frame, ours);
            }
            catch (Exception e) when (e is InvalidDataException or NotSupportedException)
            {
                oursException = e;
                oursError = $"{e.GetType().Name}: {e.Message}";
            }
            try
            {
                using var decoder = LZ4Frame.Decode(frame);
                officialWritten = decoder.ReadManyBytes(official.AsSpan());
            }
#pragma warning disable CA1031 // Whatever K4os throws is the official path's answer, reported as such.
            catch (Exception e)
#pragma warning restore CA1031
            {
                officialError = $"{e.GetType().Name}: {e.Message}";
            }

            if (oursError != null || officialError != null)
            {
                if (report.Path == BufferPath.DeclinedDictionary && oursException is NotSupportedException)
                {
                    Set(report, VerifyOutcome.Declined, $"declined by ArrowLz4Fast ({oursError}); the official decoder: {officialError ?? "decoded it without the dictionary"}");
                    return;
                }
                if (officialError == null)
                    Set(report, VerifyOutcome.RejectedByArrowLz4FastAlone, $"rejected by ArrowLz4Fast ({oursError}); the official decoder accepted it");
                else if (oursError == null)
                    Set(report, VerifyOutcome.RejectedByOfficialAlone, $"rejected by the official decoder ({officialError}); ArrowLz4Fast accepted it");
                else
                    Set(report, VerifyOutcome.RejectedByBoth, $"rejected by ArrowLz4Fast ({oursError}) and by the official decoder ({officialError})");
                return;
            }
            if (oursWritten != officialWritten)
            {
                Set(report, VerifyOutcome.DecodedDifferently, $"decoders disagree: ArrowLz4Fast decodes {oursWritten} bytes, the official decoder {officialWritten}");
                return;
            }
            if (oursWritten != report.UncompressedLength)
            {
                // Both decoders agree, but Arrow's reader compares the decoded length with the declared one and fails.
                Set(report, VerifyOutcome.WrongLength, $"rejected by Arrow's reader: the frame decodes to {oursWritten} bytes but the buffer declares {report.UncompressedLength}");
                return;
            }
            int mismatch = ours.AsSpan(0, oursWritten).CommonPrefixLength(official.AsSpan(0, officialWritten));
            if (mismatch != oursWritten)
                Set(report, VerifyOutcome.DecodedDifferently, $"decoders disagree: their outputs differ at byte {mismatch}");
            else
                Set(report, VerifyOutcome.Identical, "identical");
        }

        private static void Set(BufferReport report, VerifyOutcome outcome, string text)
        {
            report.Outcome = outcome;
            report.Verification = text;
        }

        /// <summary>Reads every batch with Apache.Arrow and ArrowLz4Fast's factory: (batches, rows) or the error.</summary>
        public static (int Batches, long Rows, string? Error) ReadWithArrow(byte[] file, bool fileFormat)
        {
            try
            {
                var factory = new Lz4FastCodecFactory(new OfficialFactory());
                using var stream = new MemoryStream(file, writable: false);
                using ArrowStreamReader reader = fileFormat ? new ArrowFileReader(stream, factory) : new ArrowStreamReader(stream, factory);
                int batches = 0;
                long rows = 0;
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    batches++;
                    rows += batch.Length;
                    batch.Dispose();
                }
                return (batches, rows, null);
            }
#pragma warning disable CA1031 // Reported to the user as the reader's verdict.
            catch (Exception e)
#pragma warning restore CA1031
            {
                return (0, 0, $"{e.GetType().Name}: {e.Message}");
            }
        }

        /// <summary>Buffers --verify found corrupt: rejected by either decoder, decoded differently, or of the wrong length.</summary>
        public static int CountFailures(IEnumerable<BufferReport> reports)
        {
            int failures = 0;
            foreach (BufferReport report in reports)
            {
                if (report.VerificationFailed)
                    failures++;
            }
            return failures;
        }

        public static int Count(IEnumerable<BufferReport> reports, VerifyOutcome outcome)
        {
            int count = 0;
            foreach (BufferReport report in reports)
            {
                if (report.Outcome == outcome)
                    count++;
            }
            return count;
        }
    }
}
