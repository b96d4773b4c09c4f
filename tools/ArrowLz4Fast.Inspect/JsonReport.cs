using System.IO;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>
    /// --json: the same report for machines. Field names follow the corpus digest tool's .expected.json
    /// (offset, length, uncompressed_length, stored_raw, frame.block_max, ...) so the two can be compared directly.
    /// </summary>
    internal static class JsonReport
    {
        public static void Write(Inspection inspection, TextWriter output)
        {
            using var stream = new MemoryStream();
            using (var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
            {
                json.WriteStartObject();
                json.WriteString("file", inspection.Path);
                json.WriteString("format", inspection.FileFormat ? "file" : "stream");
                json.WriteStartArray("messages");
                for (int m = 0; m < inspection.Messages.Count; m++)
                    WriteMessage(json, inspection.Messages[m], inspection);
                json.WriteEndArray();
                WriteSummary(json, inspection);
                json.WriteEndObject();
            }
            output.WriteLine(System.Text.Encoding.UTF8.GetString(stream.ToArray()));
        }

        private static void WriteMessage(Utf8JsonWriter json, IpcMessage message, Inspection inspection)
        {
            json.WriteStartObject();
            json.WriteNumber("index", message.Index);
            json.WriteNumber("offset", message.Offset);
            json.WriteString("type", message.Type switch
            {
                IpcMessageType.RecordBatch => "record_batch",
                IpcMessageType.DictionaryBatch => "dictionary_batch",
                IpcMessageType.Schema => "schema",
                _ => message.Type.ToString().ToLowerInvariant(),
            });
            json.WriteNumber("body_length", message.BodyLength);
            if (message.Type is IpcMessageType.RecordBatch or IpcMessageType.DictionaryBatch)
            {
                json.WriteNumber("rows", message.Rows);
                if (message.DictionaryId is long id)
                    json.WriteNumber("dictionary_id", id);
                if (message.Codec == BodyCodec.None) json.WriteNull("codec");
                else json.WriteString("codec", message.Codec == BodyCodec.Lz4Frame ? "lz4_frame" : message.Codec == BodyCodec.Zstd ? "zstd" : "unknown");
                json.WriteStartArray("buffers");
                foreach (BufferReport b in inspection.Buffers[message.Index])
                    WriteBuffer(json, b);
                json.WriteEndArray();
            }
            json.WriteEndObject();
        }

        private static void WriteBuffer(Utf8JsonWriter json, BufferReport b)
        {
            json.WriteStartObject();
            json.WriteNumber("index", b.Buffer.Index);
            json.WriteNumber("offset", b.Buffer.Offset);
            json.WriteNumber("length", b.Buffer.Length);
            json.WriteNumber("uncompressed_length", b.Path == BufferPath.Raw ? -1 : b.UncompressedLength);
            json.WriteBoolean("stored_raw", b.Path == BufferPath.Raw);
            json.WriteString("path", BufferReport.JsonName(b.Path));
            if (b.Frame is FrameProfile f)
            {
                json.WriteStartObject("frame");
                json.WriteNumber("frames", f.Frames);
                json.WriteNumber("skippable_frames", f.SkippableFrames);
                json.WriteBoolean("linked", f.Linked);
                json.WriteNumber("block_max", f.BlockMaximum);
                json.WriteBoolean("block_checksum", f.BlockChecksum);
                json.WriteBoolean("content_size", f.ContentSize.HasValue);
                json.WriteBoolean("content_checksum", f.ContentChecksum);
                json.WriteBoolean("dict_id", f.DictionaryId.HasValue);
                json.WriteNumber("blocks", f.Blocks);
                json.WriteNumber("uncompressed_blocks", f.UncompressedBlocks);
                json.WriteNumber("largest_block", f.LargestBlock);
                json.WriteEndObject();
            }
            if (b.Problem != null) json.WriteString("problem", b.Problem);
            if (b.Verification != null)
            {
                json.WriteString("verify", b.Verification);
                json.WriteString("verify_outcome", OutcomeName(b.Outcome));
                json.WriteBoolean("verify_failed", b.VerificationFailed);
            }
            json.WriteEndObject();
        }

        private static string? OutcomeName(VerifyOutcome? outcome) => outcome switch
        {
            null => null,
            VerifyOutcome.RejectedByArrowLz4FastAlone => "rejected_by_arrowlz4fast_alone",
            VerifyOutcome.RejectedByOfficialAlone => "rejected_by_official_alone",
            VerifyOutcome.RejectedByBoth => "rejected_by_both",
            VerifyOutcome.WrongLength => "wrong_length",
            VerifyOutcome.DecodedDifferently => "decoded_differently",
            _ => outcome.Value.ToString().ToLowerInvariant(),
        };

        private static void WriteSummary(Utf8JsonWriter json, Inspection i)
        {
            json.WriteStartObject("summary");
            json.WriteNumber("messages", i.Messages.Count);
            json.WriteNumber("record_batches", i.Count(IpcMessageType.RecordBatch));
            json.WriteNumber("dictionary_batches", i.Count(IpcMessageType.DictionaryBatch));
            int buffers = 0;
            foreach (var list in i.Buffers) buffers += list.Count;
            json.WriteNumber("buffers", buffers);
            json.WriteNumber("lz4_frames", i.Lz4Buffers);
            json.WriteNumber("direct", i.Count(BufferPath.Direct));
            json.WriteNumber("declined", i.Count(BufferPath.DeclinedDictionary));
            json.WriteNumber("corrupt", i.Corrupt);
            json.WriteNumber("stored_raw_buffers", i.Count(BufferPath.Raw));
            json.WriteNumber("empty", i.Count(BufferPath.Empty));
            json.WriteNumber("zstd", i.Count(BufferPath.Zstd));
            json.WriteNumber("compressed_bytes", i.CompressedBytes);
            json.WriteNumber("uncompressed_bytes", i.FrameUncompressedBytes);
            json.WriteNumber("direct_share_percent", i.DirectShare);
            json.WriteNumber("direct_byte_share_percent", i.DirectByteShare);
            if (i.ArrowRead is { } read)
            {
                (int batches, long rows, string? error) = read;
                json.WriteStartObject("arrow_read");
                json.WriteNumber("batches", batches);
                json.WriteNumber("rows", rows);
                if (error != null) json.WriteString("error", error);
                json.WriteEndObject();
                json.WriteNumber("verify_failures", i.VerificationFailures);
                json.WriteNumber("rejected_by_arrowlz4fast_alone", i.Count(VerifyOutcome.RejectedByArrowLz4FastAlone));
                json.WriteNumber("rejected_by_official_alone", i.Count(VerifyOutcome.RejectedByOfficialAlone));
                json.WriteNumber("rejected_by_both", i.Count(VerifyOutcome.RejectedByBoth));
                json.WriteNumber("wrong_length", i.Count(VerifyOutcome.WrongLength));
                json.WriteNumber("decoded_differently", i.Count(VerifyOutcome.DecodedDifferently));
            }
            json.WriteEndObject();
        }
    }
}
