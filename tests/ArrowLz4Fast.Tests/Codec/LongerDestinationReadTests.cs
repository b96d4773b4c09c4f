using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Allocators may hand Arrow's reader buffers longer than it asked for (anything built on <see cref="MemoryPool{T}"/>
    /// or <see cref="ArrayPool{T}"/> rounds up). The codec decodes into their start and returns the decoded length, so
    /// whole reads give the official reader's batches, and a frame of another length than its buffer declares is
    /// still <see cref="InvalidDataException"/>: the codec reads the declared length before the frame.
    /// </summary>
    public class LongerDestinationReadTests
    {
        public static readonly string[] Kinds = { "MemoryPool", "ArrayPool", "pad1", "pad7", "pad4096" };

        public static IEnumerable<object[]> CommittedFiles() =>
            from f in Corpus.CommittedIpcFiles() from k4os in new[] { false, true } select new object[] { f, k4os };

        public static IEnumerable<object[]> SharedOnlyFiles() =>
            from f in Corpus.SharedOnlyIpcFiles from k4os in new[] { false, true } select new object[] { f, k4os };

        [Theory]
        [MemberData(nameof(CommittedFiles))]
        public void Committed_stream_reads_the_official_batches_with_longer_buffers(string file, bool useK4os) =>
            AssertReadsOfficialBatches(Corpus.Committed(file), useK4os);

        [SharedCorpusTheory]
        [MemberData(nameof(SharedOnlyFiles))]
        public void Large_shared_stream_reads_the_official_batches_with_longer_buffers(string file, bool useK4os) =>
            AssertReadsOfficialBatches(Corpus.Shared(file), useK4os);

        private static void AssertReadsOfficialBatches(string path, bool useK4os)
        {
            byte[] bytes = File.ReadAllBytes(path);
            bool fileFormat = path.EndsWith(".arrow", StringComparison.Ordinal);
            var ours = new Lz4FastCodecFactory(new Lz4FastOptions { UseK4osDecoder = useK4os }, new OfficialFactory());
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat, new OfficialFactory());

            foreach (string kind in Kinds)
            {
                var ourAllocator = new LongerBufferAllocator(kind);
                ReadCompareAndDispose(bytes, fileFormat, ours, ourAllocator, official, kind);

                // The official codec with the same allocator: the buffers Arrow's reader itself never disposes (the
                // bodies of dictionary messages) are the only ones either read may leave out, and they must be the same.
                var officialAllocator = new LongerBufferAllocator(kind);
                ArrowData.DisposeAll(ArrowData.ReadAll(bytes, fileFormat, new OfficialFactory(), officialAllocator));
                Assert.True(ourAllocator.Rented > 0 || official.Count == 0, $"{kind}: the allocator was not used");
                Assert.Equal(officialAllocator.Rented, ourAllocator.Rented);
                Assert.Equal(officialAllocator.OutstandingLengths(), ourAllocator.OutstandingLengths());
            }
            ArrowData.DisposeAll(official);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadCompareAndDispose(byte[] bytes, bool fileFormat, ICompressionCodecFactory factory, MemoryAllocator allocator, List<RecordBatch> expected, string kind)
        {
            List<RecordBatch> read = ArrowData.ReadAll(bytes, fileFormat, factory, allocator);
            ArrowData.AssertSame(expected, read, allowLongerBuffers: true, kind);
            ArrowData.DisposeAll(read);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_frame_shorter_than_its_declared_length_is_invalid_data_on_every_allocator(bool useK4os)
        {
            // The first LZ4 buffer of the stream now declares one byte more than its frame holds.
            (byte[] bytes, long declared) = WithFirstDeclaredLengthChanged(Corpus.Committed("ipc/pyarrow/strings.arrows"), +1);
            AssertInvalidOnEveryAllocator(bytes, useK4os, $"ends after {declared - 1} decoded bytes but the Arrow buffer declares {declared}");
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_frame_longer_than_its_declared_length_is_invalid_data_on_every_allocator(bool useK4os)
        {
            (byte[] bytes, long declared) = WithFirstDeclaredLengthChanged(Corpus.Committed("ipc/pyarrow/strings.arrows"), -1);
            AssertInvalidOnEveryAllocator(bytes, useK4os, $"more than the {declared} bytes the Arrow buffer declares");
        }

        // Longer buffers, Arrow's default allocator (exactly the declared length, but nothing says so) and the package's
        // allocator: the codec reads the declared length before the frame, so its error comes, not Arrow's bare Exception.
        private static void AssertInvalidOnEveryAllocator(byte[] bytes, bool useK4os, string expected)
        {
            var factory = new Lz4FastCodecFactory(new Lz4FastOptions { UseK4osDecoder = useK4os });
            var slab = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var allocators = Kinds.Select(k => (k, (MemoryAllocator?)new LongerBufferAllocator(k)))
                .Append(("default", null)).Append(("slab", slab));
            foreach ((string kind, MemoryAllocator? allocator) in allocators)
            {
                var invalid = Assert.Throws<InvalidDataException>(() => ArrowData.ReadAll(bytes, false, factory, allocator));
                Assert.True(invalid.Message.Contains(expected, StringComparison.Ordinal), $"{kind}: {invalid.Message}");
                Assert.IsType<Frames.Lz4FrameException>(invalid.InnerException);
            }
        }

        /// <summary>
        /// The stream with the 8-byte uncompressed-length prefix of its first non-empty LZ4 buffer moved by
        /// <paramref name="delta"/>; found as the 8 bytes before the first LZ4 frame magic number of a message body.
        /// </summary>
        private static (byte[] Bytes, long Declared) WithFirstDeclaredLengthChanged(string path, int delta)
        {
            byte[] bytes = File.ReadAllBytes(path);
            ReadOnlySpan<byte> magic = new byte[] { 0x04, 0x22, 0x4D, 0x18 };
            for (int at = bytes.AsSpan().IndexOf(magic); at >= 8; )
            {
                long length = BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(at - 8));
                if (length > 1 && length < int.MaxValue)
                {
                    long declared = length + delta;
                    BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(at - 8), declared);
                    return (bytes, declared);
                }
                int next = bytes.AsSpan(at + 4).IndexOf(magic);
                at = next < 0 ? -1 : at + 4 + next;
            }
            throw new InvalidOperationException($"{path} has no LZ4 buffer");
        }
    }
}
