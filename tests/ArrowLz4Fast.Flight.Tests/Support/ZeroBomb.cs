using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// Uploads of one int64 column of zeros, LZ4-compressed by this package's codec as any Arrow writer would: the
    /// 1 GiB one is about 4 MiB on the wire (LZ4's 255:1 at most). Made once, before any call, so that what a call
    /// allocates is the server's and gRPC's, not the client's compression.
    /// </summary>
    internal static class ZeroBomb
    {
        public const long GiBRows = 1L << 27;

        private static readonly Lazy<List<byte[]?>> s_gib = new Lazy<List<byte[]?>>(() => Payloads(GiBRows));

        /// <summary>Schema and batch of 2^27 zeros (1 GiB decoded) as serialized FlightData.</summary>
        public static List<byte[]?> GiB => s_gib.Value;

        public static long WireBytes(IEnumerable<byte[]?> payloads) => payloads.Sum(p => (long)(p?.Length ?? 0));

        /// <summary>One batch of <paramref name="rows"/> int64 zeros as serialized FlightData (schema first).</summary>
        public static List<byte[]?> Payloads(long rows, bool ordinary = false)
        {
            byte[] stream = Stream(rows, ordinary);
            return IpcMessages.Split(stream).Select(m => (byte[]?)IpcMessages.FlightData(m.Header, m.Body)).ToList();
        }

        /// <summary>
        /// The compressed IPC stream of one batch of <paramref name="rows"/> int64 zeros or, <paramref name="ordinary"/>,
        /// of values that compress as ordinary data does (about 3:1).
        /// </summary>
        public static byte[] Stream(long rows, bool ordinary = false)
        {
            using RecordBatch batch = Batch(rows, ordinary);
            using var output = new MemoryStream();
            var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = new Lz4FastCodecFactory() };
            using (var writer = new ArrowStreamWriter(output, batch.Schema, leaveOpen: true, options))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }
            return output.ToArray();
        }

        /// <summary>One batch of <paramref name="rows"/> int64 zeros or, <paramref name="ordinary"/>, of values under 2^20.</summary>
        public static RecordBatch Batch(long rows, bool ordinary)
        {
            // Fresh zero pages: the encoder reads them without the process touching a gigabyte of its own.
            byte[] bytes = new byte[checked((int)(rows * 8))];
            if (ordinary)
            {
                var random = new Random(48);
                Span<long> longs = System.Runtime.InteropServices.MemoryMarshal.Cast<byte, long>(bytes.AsSpan());
                for (int i = 0; i < longs.Length; i++)
                    longs[i] = random.Next(1 << 20);
            }
            var values = new ArrowBuffer(bytes);
            var data = new ArrayData(Int64Type.Default, (int)rows, 0, 0, new[] { ArrowBuffer.Empty, values });
            var schema = new Schema.Builder().Field(f => f.Name("values").DataType(Int64Type.Default).Nullable(false)).Build();
            return new RecordBatch(schema, new IArrowArray[] { new Int64Array(data) }, (int)rows);
        }
    }
}
