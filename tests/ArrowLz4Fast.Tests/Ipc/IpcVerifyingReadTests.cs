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
    /// The verifying read (<see cref="Lz4FastOptions.VerifyOffsets"/>) and the naming of a defect's batch, field and
    /// buffer, on real corpus streams with one byte changed. nested_dict_minsavings.arrows (pyarrow with
    /// min_space_savings) stores offsets buffers raw behind the -1 prefix, where no checksum reaches:
    /// l: list&lt;int32&gt; (buffers 0-3), st: struct&lt;x: int16, y: utf8&gt; (4-9), cat: dictionary&lt;utf8&gt; (10-11), flag.
    /// </summary>
    public class IpcVerifyingReadTests
    {
        private const string MinSavings = "ipc/pyarrow/nested_dict_minsavings.arrows";

        public static IEnumerable<object[]> RawOffsets() => new[]
        {
            // message (0 = schema, 1 = the dictionary batch), buffer, what the error names
            new object[] { 2, 1, "record batch 0", "field 'l', path 'l', field node 0" },
            new object[] { 4, 8, "record batch 2", "field 'y', path 'st.y', field node 4" },
            new object[] { 1, 1, "dictionary batch 0, of dictionary id", "field 'cat', path 'cat (dictionary values)', field node 0" },
        };

        [Theory]
        [MemberData(nameof(RawOffsets))]
        public void A_flipped_byte_in_a_raw_offsets_buffer_passes_the_plain_read_and_fails_the_verifying_read(int message, int buffer, string batch, string field)
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(MinSavings));
            (int start, long length) = RawBuffer(stream, message, buffer);
            int offsets = start + 8;
            long count = (length - 8) / 4;
            // The high byte of an offset in the middle of the buffer: it becomes negative, less than the one before.
            long slot = count / 2;
            byte[] corrupt = (byte[])stream.Clone();
            corrupt[offsets + (slot * 4) + 3] ^= 0x80;

            // The plain read reads every batch: Arrow .NET does not validate offsets.
            List<RecordBatch> plain = IpcWrapped.ReadAll(corrupt, IpcWrapped.Options(1), SlabMemoryAllocator.Shared, null);
            Assert.Equal(5, plain.Count);
            ArrowData.DisposeAll(plain);

            foreach (int degree in new[] { 1, 4 })
            {
                Lz4FastOptions options = IpcWrapped.Options(degree);
                options.VerifyOffsets = true;
                InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, options, SlabMemoryAllocator.Shared, null)));
                Assert.Contains($"offset {slot} is ", e.Message, StringComparison.Ordinal);
                Assert.Contains("offsets must not decrease", e.Message, StringComparison.Ordinal);
                Assert.Contains($"In message {message} of the stream ({batch}", e.Message, StringComparison.Ordinal);
                Assert.Contains($"body buffer {buffer} (offsets) of {field}", e.Message, StringComparison.Ordinal);
                // The byte offset is the offset's own place in the input: the buffer is stored raw.
                Assert.Equal(offsets + (slot * 4), Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
            }
        }

        [Fact]
        public void A_last_offset_past_the_data_buffer_is_caught()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(MinSavings));
            (int start, long length) = RawBuffer(stream, 1, 1);
            long last = ((length - 8) / 4) - 1;
            byte[] corrupt = (byte[])stream.Clone();
            int at = start + 8 + (int)(last * 4);
            BinaryPrimitives.WriteInt32LittleEndian(corrupt.AsSpan(at), BinaryPrimitives.ReadInt32LittleEndian(corrupt.AsSpan(at)) + 1000);

            var options = new Lz4FastOptions { VerifyOffsets = true };
            InvalidDataException e = Assert.Throws<InvalidDataException>(() => ArrowData.DisposeAll(IpcWrapped.ReadAll(corrupt, options, SlabMemoryAllocator.Shared, null)));
            Assert.Contains($"the last offset (offset {last}) is ", e.Message, StringComparison.Ordinal);
            Assert.Contains("-byte data buffer", e.Message, StringComparison.Ordinal);
            Assert.Equal(at, Assert.IsType<Lz4FrameException>(e.InnerException).Offset);
        }

        public static IEnumerable<object[]> CorpusStreams() =>
            Corpus.CommittedIpcFiles().Where(f => f.EndsWith(".arrows", StringComparison.Ordinal) || f.EndsWith(".arrow", StringComparison.Ordinal)).Select(f => new object[] { f });

        [Theory]
        [MemberData(nameof(CorpusStreams))]
        public void Every_valid_corpus_stream_passes_the_verifying_read_with_the_same_batches(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
#if WITHOUT_OFFICIAL_CODEC
            // Built against an Apache.Arrow older than any Apache.Arrow.Compression: no ZSTD, so its stream is left out.
            ICompressionCodecFactory? factory = null;
            if (file.Contains("zstd", StringComparison.Ordinal))
                return;
#else
            var factory = new Apache.Arrow.Compression.CompressionCodecFactory();
#endif
            List<RecordBatch> expected = IpcWrapped.ReadAll(bytes, IpcWrapped.Options(1), SlabMemoryAllocator.Shared, factory);
            var options = new Lz4FastOptions { VerifyOffsets = true };
            List<RecordBatch> verified = IpcWrapped.ReadAll(bytes, options, SlabMemoryAllocator.Shared, factory);
            try
            {
                ArrowData.AssertSame(expected, verified);
            }
            finally
            {
                ArrowData.DisposeAll(expected);
                ArrowData.DisposeAll(verified);
            }
        }

        /// <summary>The place of buffer <paramref name="buffer"/> of message <paramref name="message"/> in the stream (its 8-byte prefix first), checked to be stored raw.</summary>
        internal static (int Start, long Length) RawBuffer(byte[] stream, int message, int buffer)
        {
            (int start, long length) = Buffer(stream, message, buffer);
            Assert.Equal(-1L, BinaryPrimitives.ReadInt64LittleEndian(stream.AsSpan(start)));
            return (start, length);
        }

        internal static (int Start, long Length) Buffer(byte[] stream, int message, int buffer)
        {
            IpcMutator.Message m = IpcMutator.Messages(stream)[message];
            (long offset, long length) = IpcMessages.Buffers(stream.AsSpan(m.Metadata, m.MetadataLength).ToArray())[buffer];
            return (m.Body + (int)offset, length);
        }
    }
}
