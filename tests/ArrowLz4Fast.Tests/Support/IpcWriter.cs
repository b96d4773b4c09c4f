using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Writes batches as an LZ4_FRAME-compressed Arrow IPC stream or file with a given codec factory; <c>legacy</c> leaves out the continuation token.</summary>
    internal static class IpcWriter
    {
        public static byte[] Write(IReadOnlyList<RecordBatch> batches, ICompressionCodecFactory factory, bool fileFormat, int? level = null, bool legacy = false)
        {
            using var stream = new MemoryStream();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory, CompressionLevel = level, WriteLegacyIpcFormat = legacy };
            using (ArrowStreamWriter writer = fileFormat
                ? new ArrowFileWriter(stream, batches[0].Schema, leaveOpen: true, options)
                : new ArrowStreamWriter(stream, batches[0].Schema, leaveOpen: true, options))
            {
                foreach (RecordBatch batch in batches)
                    writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return stream.ToArray();
        }
    }
}
