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
            int oursWritten = -1, officialWritten = -1;
            try
            {
                using var codec = new Lz4FastCodec();
                oursWritten = codec.Decompress(frame, ours);
            }
            catch (Exception e) when (e is InvalidDataException or NotSupportedException)
            {
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
                report.Verification = $"ArrowLz4Fast: {oursError ?? "ok"}; official: {officialError ?? "ok"}";
                report.VerificationFailed = (oursError == null) != (officialError == null);
                return;
            }
            if (oursWritten != officialWritten)
            {
                report.Verification = $"lengths differ: ArrowLz4Fast {oursWritten}, official {officialWritten}";
                report.VerificationFailed = true;
                return;
            }
            if (oursWritten != report.UncompressedLength)
            {
                // Both decoders agree, but Arrow's reader compares the decoded length with the declared one and fails.
                report.Verification = $"the frame decodes to {oursWritten} bytes but the buffer declares {report.UncompressedLength}";
                report.VerificationFailed = true;
                return;
            }
            int mismatch = ours.AsSpan(0, oursWritten).CommonPrefixLength(official.AsSpan(0, officialWritten));
            report.VerificationFailed = mismatch != oursWritten;
            report.Verification = report.VerificationFailed ? $"differs at byte {mismatch}" : "identical";
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
    }
}
