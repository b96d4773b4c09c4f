using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// An LZ4 IPC file with a delta dictionary batch, which no Arrow .NET writer writes (its dictionary batches are never
    /// deltas): the messages are Arrow .NET's, and the delta's metadata is rebuilt with isDelta set. The file holds the
    /// schema (id: int64, category: dictionary of utf8), the dictionary of id 0 (<see cref="Base"/>), batch 0 (indices
    /// into the base only), the delta (<see cref="Delta"/>), then batches 1 and 2 (indices into both); its footer lists
    /// the two dictionary blocks in that order, as a file writer that emits deltas does.
    /// </summary>
    internal static class DeltaDictionaryFile
    {
        public static readonly string[] Base = Enumerable.Range(0, 40).Select(i => $"base-{i}").ToArray();

        public static readonly string[] Delta = Enumerable.Range(0, 25).Select(i => $"delta-{i}").ToArray();

        private static readonly DictionaryType CategoryType = new(Int32Type.Default, StringType.Default, false);

        private static readonly Schema FileSchema = new Schema.Builder()
            .Field(f => f.Name("id").DataType(Int64Type.Default).Nullable(false))
            .Field(f => f.Name("category").DataType(CategoryType).Nullable(true))
            .Build();

        /// <summary>The file, its batches' bodies LZ4-compressed with <paramref name="factory"/>.</summary>
        public static byte[] Build(ICompressionCodecFactory factory)
        {
            string[] all = Base.Concat(Delta).ToArray();
            // Batch 0 uses the base's entries only; batches 1 and 2 the delta's too.
            var batches = new[] { Batch(all, 0, 3000, Base.Length), Batch(all, 1, 5000, all.Length), Batch(all, 2, 4000, all.Length) };
            byte[] whole = Write(batches, factory, fileFormat: true);
            byte[] withBase = Write(new[] { Batch(Base, 0, 10, Base.Length) }, factory, fileFormat: false);
            byte[] withDelta = Write(new[] { Batch(Delta, 0, 10, Delta.Length) }, factory, fileFormat: false);
            foreach (RecordBatch b in batches)
                b.Dispose();

            List<IpcMutator.Message> messages = IpcMutator.Messages(whole);
            IpcMutator.Message baseDictionary = IpcMutator.Messages(withBase)[1];
            IpcMutator.Message deltaDictionary = IpcMutator.Messages(withDelta)[1];
            byte[] deltaMetadata = AsDelta(withDelta.AsSpan(deltaDictionary.Metadata, deltaDictionary.MetadataLength).ToArray());

            var file = new MemoryStream();
            file.Write(whole, 0, 8);
            Copy(file, whole, messages[0]);
            var dictionaries = new List<(long Offset, int Metadata, long Body)>();
            var records = new List<(long Offset, int Metadata, long Body)>();
            dictionaries.Add(Copy(file, withBase, baseDictionary));
            records.Add(Copy(file, whole, messages[2]));
            dictionaries.Add(Message(file, deltaMetadata, withDelta.AsSpan(deltaDictionary.Body, (int)deltaDictionary.BodyLength)));
            records.Add(Copy(file, whole, messages[3]));
            records.Add(Copy(file, whole, messages[4]));
            file.Write(new byte[] { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 }, 0, 8);
            WriteFooter(file, whole, dictionaries, records);
            return file.ToArray();
        }

        /// <summary>What Arrow's reader sees from a sequential read of the file: batch 0 with the base only, the others with both.</summary>
        public static RecordBatch Batch(string[] dictionary, int seed, int rows, int entries)
        {
            var random = new Random(seed);
            var ids = new Int64Array.Builder();
            var indices = new Int32Array.Builder();
            for (int i = 0; i < rows; i++)
            {
                ids.Append((seed * 100_000L) + i);
                if (i % 17 == 5)
                    indices.AppendNull();
                else
                    indices.Append(random.Next(entries));
            }
            var values = new StringArray.Builder().AppendRange(dictionary).Build();
            var category = new DictionaryArray(CategoryType, indices.Build(), values);
            return new RecordBatch(FileSchema, new IArrowArray[] { ids.Build(), category }, rows);
        }

        private static byte[] Write(IReadOnlyList<RecordBatch> batches, ICompressionCodecFactory factory, bool fileFormat) =>
            IpcWriter.Write(batches, factory, fileFormat);

        private static (long Offset, int Metadata, long Body) Copy(MemoryStream file, byte[] from, IpcMutator.Message message)
        {
            long offset = file.Position;
            int metadata = message.Body - message.Start;
            file.Write(from, message.Start, metadata + (int)message.BodyLength);
            return (offset, metadata, message.BodyLength);
        }

        /// <summary>A message of <paramref name="metadata"/> (padded so that the body starts 8-aligned) and <paramref name="body"/>.</summary>
        private static (long Offset, int Metadata, long Body) Message(MemoryStream file, byte[] metadata, ReadOnlySpan<byte> body)
        {
            long offset = file.Position;
            int padded = (metadata.Length + 7) & ~7;
            var prefix = new byte[8];
            BinaryPrimitives.WriteInt32LittleEndian(prefix, -1);
            BinaryPrimitives.WriteInt32LittleEndian(prefix.AsSpan(4), padded);
            file.Write(prefix, 0, 8);
            file.Write(metadata, 0, metadata.Length);
            file.Write(new byte[padded - metadata.Length], 0, padded - metadata.Length);
            file.Write(body.ToArray(), 0, body.Length);
            return (offset, 8 + padded, body.Length);
        }

        /// <summary>
        /// The Message of a DictionaryBatch rebuilt from <paramref name="original"/>'s values with isDelta set: version,
        /// bodyLength, id, and the data batch's length, nodes, buffers and compression.
        /// </summary>
        private static byte[] AsDelta(byte[] original)
        {
            var reader = new FlatReader(original, 0, original.Length, 0);
            FlatTable root = reader.Root("Message");
            short version = reader.Int16(root, 0, 0, "version");
            long bodyLength = reader.Int64(root, 3, 0, "bodyLength");
            FlatTable dictionary = reader.SubTable(root, 2, "header");
            long id = reader.Int64(dictionary, 0, 0, "id");
            FlatTable data = reader.SubTable(dictionary, 1, "data");
            long length = reader.Int64(data, 0, 0, "length");
            (int nodes, int nodeCount) = reader.Vector(data, 1, 16, "nodes");
            (int buffers, int bufferCount) = reader.Vector(data, 2, 16, "buffers");
            FlatTable compression = reader.SubTable(data, 3, "compression");
            int codec = compression.Exists ? reader.UInt8(compression, 0, 0, "codec") : -1;

            var b = new byte[256 + (16 * (nodeCount + bufferCount))];
            void I16(int at, int v) => BinaryPrimitives.WriteInt16LittleEndian(b.AsSpan(at), (short)v);
            void I32(int at, int v) => BinaryPrimitives.WriteInt32LittleEndian(b.AsSpan(at), v);
            void I64(int at, long v) => BinaryPrimitives.WriteInt64LittleEndian(b.AsSpan(at), v);
            // Each object before the ones it refers to, so every uoffset points forward; 8-byte fields 8-aligned.
            const int MessageVt = 4, MessageT = 16, DictionaryVt = 40, DictionaryT = 56, BatchVt = 80, BatchT = 96, CompressionVt = 120, CompressionT = 128;
            I32(0, MessageT);
            I16(MessageVt, 12); I16(MessageVt + 2, 24); I16(MessageVt + 4, 16); I16(MessageVt + 6, 18); I16(MessageVt + 8, 4); I16(MessageVt + 10, 8);
            I32(MessageT, MessageT - MessageVt);
            I32(MessageT + 4, DictionaryT - (MessageT + 4));
            I64(MessageT + 8, bodyLength);
            I16(MessageT + 16, version);
            b[MessageT + 18] = IpcMessageParser.HeaderDictionaryBatch;
            I16(DictionaryVt, 10); I16(DictionaryVt + 2, 24); I16(DictionaryVt + 4, 8); I16(DictionaryVt + 6, 4); I16(DictionaryVt + 8, 16);
            I32(DictionaryT, DictionaryT - DictionaryVt);
            I32(DictionaryT + 4, BatchT - (DictionaryT + 4));
            I64(DictionaryT + 8, id);
            b[DictionaryT + 16] = 1;
            I16(BatchVt, 12); I16(BatchVt + 2, 24); I16(BatchVt + 4, 16); I16(BatchVt + 6, 4); I16(BatchVt + 8, 8); I16(BatchVt + 10, codec >= 0 ? 12 : 0);
            I32(BatchT, BatchT - BatchVt);
            I64(BatchT + 16, length);
            I16(CompressionVt, 8); I16(CompressionVt + 2, 8); I16(CompressionVt + 4, 4); I16(CompressionVt + 6, 5);
            I32(CompressionT, CompressionT - CompressionVt);
            b[CompressionT + 4] = (byte)Math.Max(codec, 0);
            int nodesAt = 140;
            int buffersAt = nodesAt + 4 + (16 * nodeCount) + 4;
            I32(BatchT + 4, nodesAt - (BatchT + 4));
            I32(BatchT + 8, buffersAt - (BatchT + 8));
            if (codec >= 0)
                I32(BatchT + 12, CompressionT - (BatchT + 12));
            I32(nodesAt, nodeCount);
            original.AsSpan(nodes, 16 * nodeCount).CopyTo(b.AsSpan(nodesAt + 4));
            I32(buffersAt, bufferCount);
            original.AsSpan(buffers, 16 * bufferCount).CopyTo(b.AsSpan(buffersAt + 4));
            return b.AsSpan(0, buffersAt + 4 + (16 * bufferCount)).ToArray();
        }

        /// <summary>
        /// <paramref name="whole"/>'s footer with the record batch blocks moved to the new messages and a new
        /// dictionaries vector appended to it (a uoffset may point anywhere forward; the old vector is left unused).
        /// </summary>
        private static void WriteFooter(MemoryStream file, byte[] whole, List<(long Offset, int Metadata, long Body)> dictionaries, List<(long Offset, int Metadata, long Body)> records)
        {
            int footerLength = BinaryPrimitives.ReadInt32LittleEndian(whole.AsSpan(whole.Length - 10));
            int footerStart = whole.Length - 10 - footerLength;
            // Room for the appended vector at an offset whose elements are 8-aligned (within the footer).
            int vectorAt = ((footerLength + 4 + 7) & ~7) - 4;
            byte[] footer = new byte[vectorAt + 4 + (24 * dictionaries.Count)];
            whole.AsSpan(footerStart, footerLength).CopyTo(footer);
            var reader = new FlatReader(footer, 0, footerLength, 0);
            FlatTable root = reader.Root("Footer");
            int field = reader.Field(root, 2, 4, "dictionaries");
            (int batches, int batchCount) = reader.Vector(root, 3, 24, "recordBatches");
            if (field < 0 || batchCount != records.Count)
                throw new InvalidOperationException("Arrow .NET's footer is not as expected");
            for (int i = 0; i < records.Count; i++)
                Block(footer, batches + (24 * i), records[i]);
            BinaryPrimitives.WriteInt32LittleEndian(footer.AsSpan(field), vectorAt - field);
            BinaryPrimitives.WriteInt32LittleEndian(footer.AsSpan(vectorAt), dictionaries.Count);
            for (int i = 0; i < dictionaries.Count; i++)
                Block(footer, vectorAt + 4 + (24 * i), dictionaries[i]);
            file.Write(footer, 0, footer.Length);
            var trailer = new byte[10];
            BinaryPrimitives.WriteInt32LittleEndian(trailer, footer.Length);
            "ARROW1"u8.CopyTo(trailer.AsSpan(4));
            file.Write(trailer, 0, trailer.Length);
        }

        private static void Block(byte[] footer, int at, (long Offset, int Metadata, long Body) block)
        {
            BinaryPrimitives.WriteInt64LittleEndian(footer.AsSpan(at), block.Offset);
            BinaryPrimitives.WriteInt32LittleEndian(footer.AsSpan(at + 8), block.Metadata);
            BinaryPrimitives.WriteInt32LittleEndian(footer.AsSpan(at + 12), 0);
            BinaryPrimitives.WriteInt64LittleEndian(footer.AsSpan(at + 16), block.Body);
        }
    }
}
