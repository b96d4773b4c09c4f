using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// An IPC stream past 4 GiB read in order through <see cref="IpcDecompressingStream"/>: a schema, then the same
    /// 1 MB batch message over and over on a seekable stream made on the fly, then a batch with a broken frame. With
    /// a projection of the small column, the other column's bytes are seeked past, so 5 GiB read in a moment; every
    /// batch must hold the small column's values, and the broken frame must be an error at its offset past 4 GiB.
    /// </summary>
    public sealed class IpcLargeInputTests
    {
        private const long Past = 5L << 30;

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void A_stream_past_4_GiB_reads_every_batch_and_locates_an_error_past_4_GiB(int degree)
        {
            var random = new Random(7);
            byte[][] blobs = Enumerable.Range(0, 1000).Select(_ => { byte[] b = new byte[1024]; random.NextBytes(b); return b; }).ToArray();
            using RecordBatch batch = new RecordBatch.Builder()
                .Append("id", false, c => c.Int64(b => b.AppendRange(Enumerable.Range(0, 1000).Select(i => (long)i * i))))
                .Append("blob", false, c => c.Binary(b => b.AppendRange(blobs)))
                .Build();
            List<IpcMessages.Message> messages = IpcMessages.Of(IpcWriter.Write(new[] { batch }, new Lz4FastCodecFactory(), fileFormat: false));
            byte[] head = Framed(messages[0]);
            byte[] unit = Framed(messages[1]);
            Assert.True(unit.Length > 1_000_000);

            // The last batch: the id column's data buffer with its LZ4 frame's magic number broken.
            byte[] broken = (byte[])unit.Clone();
            int metadataEnd = 8 + BinaryPrimitives.ReadInt32LittleEndian(unit.AsSpan(4));
            (long Offset, long Length)[] buffers = IpcMessages.Buffers(messages[1].Metadata);
            int at = metadataEnd + (int)buffers[1].Offset + 8;
            broken[at] ^= 0xFF;
            int count = (int)(Past / unit.Length) + 1;
            var input = new RepeatedMessages(head, unit, count, broken);
            long brokenAt = head.Length + ((long)count * unit.Length) + at;
            Assert.True(brokenAt > uint.MaxValue);

            var options = new Lz4FastOptions { Projection = IpcProjection.ByName("id"), MaxDegreeOfParallelism = degree };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, options), SlabMemoryAllocator.Shared);
            long[] ids = Enumerable.Range(0, 1000).Select(i => (long)i * i).ToArray();
            for (int i = 0; i < count; i++)
            {
                using RecordBatch got = reader.ReadNextRecordBatch();
                Assert.NotNull(got);
                Assert.Equal(1, got.ColumnCount);
                Assert.Equal(1000, got.Length);
                if (i % 997 == 0 || i == count - 1)
                    Assert.Equal(ids, ((Int64Array)got.Column(0)).Values.ToArray());
            }
            Assert.True(input.BytesRead < input.Length / 50, $"{input.BytesRead} of {input.Length} bytes read");
            var e = Assert.Throws<InvalidDataException>(() => reader.ReadNextRecordBatch());
            Assert.Equal(brokenAt, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        /// <summary>The message as the stream holds it: continuation, padded metadata length, metadata, padding, body.</summary>
        private static byte[] Framed(IpcMessages.Message message)
        {
            byte[] stream = IpcMessages.Stream(new[] { ((ReadOnlyMemory<byte>)message.Metadata, (ReadOnlyMemory<byte>)message.Body) });
            return stream.AsSpan(0, stream.Length - 8).ToArray();
        }

        /// <summary>A seekable stream of head, unit <c>count</c> times, last, and the end marker, made as it is read.</summary>
        private sealed class RepeatedMessages : Stream
        {
            private static readonly byte[] End = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };
            private readonly byte[] _head, _unit, _last;
            private readonly long _units;
            private long _position;

            public RepeatedMessages(byte[] head, byte[] unit, int count, byte[] last)
            {
                _head = head;
                _unit = unit;
                _last = last;
                _units = (long)count * unit.Length;
            }

            public long BytesRead { get; private set; }

            public override bool CanRead => true;

            public override bool CanSeek => true;

            public override bool CanWrite => false;

            public override long Length => _head.Length + _units + _last.Length + End.Length;

            public override long Position
            {
                get => _position;
                set => _position = value;
            }

            public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

            public override int Read(Span<byte> buffer)
            {
                long at = _position;
                ReadOnlySpan<byte> piece;
                if (at < _head.Length)
                    piece = _head.AsSpan((int)at);
                else if ((at -= _head.Length) < _units)
                    piece = _unit.AsSpan((int)(at % _unit.Length));
                else if ((at -= _units) < _last.Length)
                    piece = _last.AsSpan((int)at);
                else if ((at -= _last.Length) < End.Length)
                    piece = End.AsSpan((int)at);
                else
                    return 0;
                int n = Math.Min(piece.Length, buffer.Length);
                piece.Slice(0, n).CopyTo(buffer);
                _position += n;
                BytesRead += n;
                return n;
            }

            public override long Seek(long offset, SeekOrigin origin) => _position = origin switch
            {
                SeekOrigin.Begin => offset,
                SeekOrigin.Current => _position + offset,
                _ => Length + offset,
            };

            public override void Flush()
            {
            }

            public override void SetLength(long value) => throw new NotSupportedException();

            public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        }
    }
}
