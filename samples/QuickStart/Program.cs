using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;

var factory = new Lz4FastCodecFactory();   // thread-safe; keep one
string path = Path.Combine(Path.GetTempPath(), "quickstart.arrows");

// 1,000,000 rows.
using RecordBatch table = new RecordBatch.Builder()
    .Append("id", false, col => col.Int64(a => a.AppendRange(Enumerable.Range(0, 1_000_000).Select(i => (long)i))))
    .Append("name", false, col => col.String(a => a.AppendRange(Enumerable.Range(0, 1_000_000).Select(i => $"name {i % 5000}"))))
    .Build();

// Write an LZ4-compressed IPC stream (for content checksums: new Lz4FastCodecFactory(new Lz4FastOptions { ContentChecksum = true })).
var options = new IpcOptions { CompressionCodec = CompressionCodecType.Lz4Frame, CompressionCodecFactory = factory };
using (var writer = new ArrowStreamWriter(File.Create(path), table.Schema, leaveOpen: false, options))
{
    writer.WriteRecordBatch(table);
    writer.WriteEnd();
}

// Read it: the codec decodes each buffer as Arrow's reader asks for it.
using (var reader = new ArrowStreamReader(File.OpenRead(path), factory))
{
    while (reader.ReadNextRecordBatch() is RecordBatch batch)
        using (batch) Console.WriteLine($"read {batch.Length} rows");
}

// Read it in parallel: all the buffers of a batch decode at once, into reusable memory.
using (var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(path)), SlabMemoryAllocator.Shared))
{
    while (reader.ReadNextRecordBatch() is RecordBatch batch)
        using (batch) Console.WriteLine($"read {batch.Length} rows in parallel");
}

// Wrap the whole IPC stream in an LZ4 frame (a .arrows.lz4 file, an HTTP lz4 body), then read it.
using (var input = File.OpenRead(path))
using (var lz4 = new Lz4FrameStream(File.Create(path + ".lz4"), CompressionMode.Compress))   // with a content checksum
    input.CopyTo(lz4);
using (var reader = Lz4FramedArrow.CreateStreamReader(File.OpenRead(path + ".lz4")))
{
    while (reader.ReadNextRecordBatch() is RecordBatch batch)
        using (batch) Console.WriteLine($"read {batch.Length} rows from the LZ4 frame");
}

// Corrupt data throws InvalidDataException; its message says where, the inner Lz4FrameException has the offset.
byte[] corrupt = File.ReadAllBytes(path + ".lz4");
corrupt[corrupt.Length / 2] ^= 0xFF;
try
{
    using var reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(corrupt));
    while (reader.ReadNextRecordBatch() is RecordBatch batch)
        batch.Dispose();
}
catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
{
    Console.WriteLine($"corrupt at byte {frame.Offset}: {e.Message}");
}
