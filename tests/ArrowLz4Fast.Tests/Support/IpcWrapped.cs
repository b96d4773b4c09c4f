using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Reads IPC bytes through <see cref="IpcDecompressingStream"/>, with Arrow's stream reader or by draining the stream.</summary>
    internal static class IpcWrapped
    {
        public static Lz4FastOptions Options(int degree, int minimumParallelLength = Frames.Lz4Parallelism.DefaultMinimumLength) =>
            new() { MaxDegreeOfParallelism = degree, MinimumParallelLength = minimumParallelLength };

        /// <summary>Every record batch, read by ArrowStreamReader over the wrapper; <paramref name="factory"/> handles what passes through (ZSTD).</summary>
        public static List<RecordBatch> ReadAll(byte[] bytes, Lz4FastOptions options, MemoryAllocator allocator, ICompressionCodecFactory? factory)
        {
            var batches = new List<RecordBatch>();
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(bytes, writable: false), options), allocator, factory!, leaveOpen: false);
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
                batches.Add(batch);
            return batches;
        }

        /// <summary>The whole decompressed stream, read with the given read sizes (cycled); 0 means as large as possible.</summary>
        public static byte[] Drain(byte[] bytes, Lz4FastOptions options, IReadOnlyList<int> sizes)
        {
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), options);
            using var output = new MemoryStream();
            byte[] buffer = new byte[64 << 20];
            for (int i = 0; ; i++)
            {
                int size = sizes[i % sizes.Count];
                int n = stream.Read(buffer, 0, size == 0 ? buffer.Length : size);
                if (n == 0)
                    break;
                output.Write(buffer, 0, n);
            }
            return output.ToArray();
        }
    }
}
