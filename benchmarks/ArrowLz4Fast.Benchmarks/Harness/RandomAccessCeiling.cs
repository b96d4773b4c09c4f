using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using Microsoft.Win32.SafeHandles;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The decode-only ceiling of reading some columns of batch <i>i</i> of an LZ4 IPC file: the selected buffers' file
    /// ranges are found once, from the footer and the batch's metadata; each <see cref="Read"/> then reads exactly those
    /// ranges with <see cref="RandomAccess.Read(SafeFileHandle, Span{byte}, long)"/> on an open handle into a reused
    /// array and decodes each buffer's frame (<see cref="Lz4FrameDecoder.DecodeBatch"/>, with the reader's default
    /// parallelism) into another reused array. No metadata, no Arrow objects, no checks beyond the decoder's own.
    /// </summary>
    public sealed class RandomAccessCeiling : IDisposable
    {
        private readonly SafeFileHandle _handle;
        private readonly (long Offset, int Length)[] _ranges;
        private readonly Lz4FrameBatchItem[] _items;
        private readonly byte[] _compressed;
        private readonly byte[] _decoded;
        private readonly Lz4FrameDecoderOptions _options = new Lz4FastOptions().DecoderOptions;

        /// <param name="path">The IPC file.</param>
        /// <param name="index">The record batch.</param>
        /// <param name="schema">The file's schema (flat fields only).</param>
        /// <param name="columns">The selected fields' names.</param>
        public RandomAccessCeiling(string path, int index, Schema schema, IReadOnlyCollection<string> columns)
        {
            IpcFileBlock block;
            byte[] metadata;
            using (IpcFileSource file = IpcFileSource.Open(path))
            {
                block = IpcFileFooter.Read(file).RecordBatches[index];
                metadata = new byte[block.MetadataLength];
                file.ReadAt(block.Offset, metadata);
            }
            // The block's metadata: continuation marker, length, then the Message flatbuffer.
            var reader = new FlatReader(metadata, 8, block.MetadataLength - 8, 0);
            IpcMessage message = IpcMessageParser.Parse(reader, buffers: true);

            _handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read, FileOptions.RandomAccess);
            var ranges = new List<(long, int)>();
            var items = new List<Lz4FrameBatchItem>();
            int source = 0, destination = 0;
            int first = 0;
            foreach (Field field in schema.FieldsList)
            {
                int count = field.DataType is StringType or BinaryType ? 3 : field.DataType is NestedType ? throw new NotSupportedException(field.Name) : 2;
                if (columns.Contains(field.Name))
                {
                    for (int b = first; b < first + count; b++)
                    {
                        int at = message.Buffers + (b * IpcMessageParser.BufferStructSize);
                        long offset = block.Body + reader.ReadInt64(at);
                        int length = (int)reader.ReadInt64(at + 8);
                        if (length == 0)
                            continue;
                        // Each buffer: its decoded length (int64, -1 when stored as it is), then its LZ4 frame.
                        byte[] prefix = new byte[8];
                        RandomAccess.Read(_handle, prefix, offset);
                        long decoded = BitConverter.ToInt64(prefix, 0);
                        bool stored = decoded == -1;
                        int output = stored ? length - 8 : (int)decoded;
                        ranges.Add((offset, length));
                        if (output > 0)
                            items.Add(new Lz4FrameBatchItem(source + 8, length - 8, destination, output, stored));
                        source += length;
                        destination += (output + 63) & ~63;
                    }
                }
                first += count;
            }
            _ranges = ranges.ToArray();
            _items = items.ToArray();
            _compressed = new byte[source];
            _decoded = new byte[destination];
        }

        /// <summary>The selected buffers' bytes in the file (their length prefixes and frames).</summary>
        public long CompressedBytes => _compressed.Length;

        /// <summary>Reads the selected buffers' ranges and decodes them; returns the decoded bytes.</summary>
        public long Read()
        {
            int at = 0;
            foreach ((long offset, int length) in _ranges)
            {
                int got = 0;
                int n;
                while (got < length && (n = RandomAccess.Read(_handle, _compressed.AsSpan(at + got, length - got), offset + got)) > 0)
                    got += n;
                at += length;
            }
            Lz4FrameDecoder.DecodeBatch(_compressed, _decoded, _items, _options);
            return _decoded.Length;
        }

        public void Dispose() => _handle.Dispose();
    }
}
