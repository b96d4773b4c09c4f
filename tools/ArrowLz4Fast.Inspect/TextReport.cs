using System.IO;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>The human-readable report: one block per message, one line per buffer, a summary line.</summary>
    internal static class TextReport
    {
        public static void Write(Inspection inspection, TextWriter output)
        {
            output.WriteLine($"{inspection.Path}: Arrow IPC {(inspection.FileFormat ? "file" : "stream")}, {inspection.Messages.Count} messages");
            for (int m = 0; m < inspection.Messages.Count; m++)
            {
                IpcMessage message = inspection.Messages[m];
                string detail = message.Type switch
                {
                    IpcMessageType.RecordBatch or IpcMessageType.DictionaryBatch =>
                        $"{message.Rows} rows, body {message.BodyLength} bytes, codec {Codec(message.Codec)}"
                        + (message.DictionaryId is long id ? $", dictionary id {id}" : ""),
                    _ => $"body {message.BodyLength} bytes",
                };
                output.WriteLine($"message {message.Index} at {message.Offset}: {message.Type}, {detail}");
                foreach (BufferReport b in inspection.Buffers[m])
                {
                    string sizes = b.Path switch
                    {
                        BufferPath.Direct or BufferPath.DeclinedDictionary or BufferPath.Zstd =>
                            $"{b.Buffer.Length - 8} -> {b.UncompressedLength} bytes",
                        _ => $"{b.Buffer.Length} bytes",
                    };
                    string line = $"  buffer {b.Buffer.Index,3} @{b.Buffer.Offset,-9} {sizes,-24} {BufferReport.Describe(b.Path)}";
                    if (b.Frame != null) line += $"  [{b.Frame}]";
                    if (b.Problem != null) line += $"  {b.Problem}";
                    if (b.Verification != null) line += $"  verify: {b.Verification}";
                    output.WriteLine(line);
                }
            }

            if (inspection.ArrowRead is { } read)
            {
                (int batches, long rows, string? error) = read;
                output.WriteLine(error == null
                    ? $"arrow: Apache.Arrow read {batches} record batches, {rows} rows with ArrowLz4Fast's factory"
                    : $"arrow: Apache.Arrow could not read the input: {error}");
            }
            if (inspection.Buffers.Count > 0 && inspection.ArrowRead != null)
            {
                int failures = inspection.VerificationFailures;
                output.WriteLine(failures == 0
                    ? "verify: every LZ4 buffer decodes identically with ArrowLz4Fast and the official decoder"
                    : $"verify: {failures} buffer(s) corrupt: {inspection.Count(VerifyOutcome.RejectedByArrowLz4FastAlone)} rejected by ArrowLz4Fast alone "
                      + $"(the official decoder accepted them), {inspection.Count(VerifyOutcome.RejectedByOfficialAlone)} by the official decoder alone, "
                      + $"{inspection.Count(VerifyOutcome.RejectedByBoth)} by both, {inspection.Count(VerifyOutcome.WrongLength)} by Arrow's reader (wrong decoded length), "
                      + $"{inspection.Count(VerifyOutcome.DecodedDifferently)} decoded differently");
            }
            output.WriteLine(Summary(inspection));
        }

        public static string Summary(Inspection i)
        {
            double ratio = i.CompressedBytes == 0 ? 0 : (double)i.FrameUncompressedBytes / i.CompressedBytes;
            return $"summary: {i.Messages.Count} messages ({i.Count(IpcMessageType.RecordBatch)} record batches, {i.Count(IpcMessageType.DictionaryBatch)} dictionary batches), "
                + $"{i.AllBuffersCount()} buffers, {i.Lz4Buffers} LZ4 frames: {i.Count(BufferPath.Direct)} direct, {i.Count(BufferPath.DeclinedDictionary)} declined, "
                + $"{i.Corrupt} corrupt; {i.Count(BufferPath.Raw)} raw, {i.Count(BufferPath.Empty)} empty, {i.Count(BufferPath.Zstd)} zstd; "
                + $"{i.CompressedBytes} -> {i.FrameUncompressedBytes} bytes ({ratio:0.00}x); direct share {i.DirectShare:0.#} % of frames, {i.DirectByteShare:0.#} % of bytes";
        }

        public static string Codec(BodyCodec codec) => codec switch
        {
            BodyCodec.None => "none",
            BodyCodec.Lz4Frame => "LZ4_FRAME",
            BodyCodec.Zstd => "ZSTD",
            _ => $"unknown ({(int)codec})",
        };

        private static int AllBuffersCount(this Inspection inspection)
        {
            int n = 0;
            foreach (var buffers in inspection.Buffers)
                n += buffers.Count;
            return n;
        }
    }
}
