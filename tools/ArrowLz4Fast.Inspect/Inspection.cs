using System;
using System.Collections.Generic;
using System.Linq;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>Everything the tool found in one input, and the totals of the summary line.</summary>
    internal sealed class Inspection
    {
        public Inspection(string path, bool fileFormat, IReadOnlyList<IpcMessage> messages, IReadOnlyList<IReadOnlyList<BufferReport>> buffers)
        {
            Path = path;
            FileFormat = fileFormat;
            Messages = messages;
            Buffers = buffers;
        }

        public string Path { get; }

        public bool FileFormat { get; }

        public IReadOnlyList<IpcMessage> Messages { get; }

        /// <summary>Per message, its buffer reports (empty for schemas).</summary>
        public IReadOnlyList<IReadOnlyList<BufferReport>> Buffers { get; }

        public (int Batches, long Rows, string? Error)? ArrowRead { get; set; }

        public IEnumerable<BufferReport> AllBuffers => Buffers.SelectMany(b => b);

        public int Count(IpcMessageType type) => Messages.Count(m => m.Type == type);

        public int Count(BufferPath path) => AllBuffers.Count(b => b.Path == path);

        /// <summary>Buffers that hold an LZ4 frame (direct, declined or corrupt in an LZ4 body).</summary>
        public int Lz4Buffers => Count(BufferPath.Direct) + Count(BufferPath.DeclinedDictionary)
            + AllBuffers.Count(b => b.Path == BufferPath.Corrupt && IsLz4(b));

        public long CompressedBytes => AllBuffers.Where(b => b.Frame != null).Sum(b => b.Buffer.Length - 8);

        public long FrameUncompressedBytes => AllBuffers.Where(b => b.Frame != null).Sum(b => b.UncompressedLength);

        public long DirectUncompressedBytes => AllBuffers.Where(b => b.Path == BufferPath.Direct).Sum(b => b.UncompressedLength);

        public double DirectShare => Lz4Buffers == 0 ? 0 : 100.0 * Count(BufferPath.Direct) / Lz4Buffers;

        public double DirectByteShare => FrameUncompressedBytes == 0 ? 0 : 100.0 * DirectUncompressedBytes / FrameUncompressedBytes;

        public int VerificationFailures => Verifier.CountFailures(AllBuffers);

        public int Count(VerifyOutcome outcome) => Verifier.Count(AllBuffers, outcome);

        /// <summary>Buffers whose frame does not parse, and, with --verify, buffers a decoder rejects or the decoders disagree on.</summary>
        public int Corrupt => Count(BufferPath.Corrupt) + VerificationFailures;

        private bool IsLz4(BufferReport report)
        {
            for (int i = 0; i < Messages.Count; i++)
            {
                if (Buffers[i].Contains(report))
                    return Messages[i].Codec == BodyCodec.Lz4Frame;
            }
            return false;
        }
    }
}
