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
    /// whole reads give the official reader's batches, and Arrow's own length check still catches a short frame.
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
        public void A_frame_shorter_than_its_declared_length_still_fails_the_read(bool useK4os)
        {
            // The first LZ4 buffer of the stream now declares one byte more than its frame holds.
            (byte[] bytes, long declared) = WithFirstDeclaredLengthChanged(Corpus.Committed("ipc/pyarrow/strings.arrows"), +1);
            var factory = new Lz4FastCodecFactory(new Lz4FastOptions { UseK4osDecoder = useK4os });

            foreach (string kind in Kinds)
            {
                // With a longer buffer the codec cannot know the declared length: Arrow's own check names both lengths.
                Exception e = Assert.ThrowsAny<Exception>(() => ArrowData.ReadAll(bytes, false, factory, new LongerBufferAllocator(kind)));
                Assert.Contains($"{declared}", e.Message);
                Assert.Contains($"{declared - 1}", e.Message);
            }

            // Buffers of the package's allocator are exactly as long as declared: the codec's precise error.
            var slab = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var invalid = Assert.Throws<InvalidDataException>(() => ArrowData.ReadAll(bytes, false, factory, slab));
            Assert.Contains($"ends after {declared - 1} decoded bytes but the Arrow buffer declares {declared}", invalid.Message);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_frame_longer_than_its_declared_length_fails_the_read(bool useK4os)
        {
            (byte[] bytes, long declared) = WithFirstDeclaredLengthChanged(Corpus.Committed("ipc/pyarrow/strings.arrows"), -1);
            var factory = new Lz4FastCodecFactory(new Lz4FastOptions { UseK4osDecoder = useK4os });

            foreach (string kind in Kinds)
            {
                Exception e = Assert.ThrowsAny<Exception>(() => ArrowData.ReadAll(bytes, false, factory, new LongerBufferAllocator(kind)));
                Assert.Contains($"{declared}", e.Message);
            }

            var slab = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { IdleTrimDelay = Timeout.InfiniteTimeSpan });
            var invalid = Assert.Throws<InvalidDataException>(() => ArrowData.ReadAll(bytes, false, factory, slab));
            Assert.Contains($"more than the {declared} bytes the Arrow buffer declares", invalid.Message);
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

        /// <summary>
        /// Hands out buffers longer than requested: rented from <see cref="MemoryPool{T}.Shared"/> or
        /// <see cref="ArrayPool{T}.Shared"/>, or fresh arrays padded by a fixed count and filled with a pattern. Counts
        /// what it hands out and what comes back.
        /// </summary>
        private sealed class LongerBufferAllocator : MemoryAllocator
        {
            private readonly string _kind;
            private readonly Dictionary<int, int> _outstanding = new();
            private int _rented;

            public LongerBufferAllocator(string kind) => _kind = kind;

            public int Rented => _rented;

            public string OutstandingLengths()
            {
                lock (_outstanding)
                    return string.Join(",", _outstanding.Where(p => p.Value != 0).OrderBy(p => p.Key).Select(p => $"{p.Key}x{p.Value}"));
            }

            protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
            {
                Interlocked.Increment(ref _rented);
                lock (_outstanding)
                    _outstanding[length] = _outstanding.TryGetValue(length, out int n) ? n + 1 : 1;
                IMemoryOwner<byte> owner = _kind switch
                {
                    "MemoryPool" => MemoryPool<byte>.Shared.Rent(length),
                    "ArrayPool" => new ArrayPoolOwner(ArrayPool<byte>.Shared.Rent(length)),
                    _ => new ArrayPoolOwner(Padded(length + int.Parse(_kind.AsSpan(3), System.Globalization.CultureInfo.InvariantCulture)), pooled: false),
                };
                bytesAllocated = owner.Memory.Length;
                return new Tracked(owner, this, length);
            }

            private static byte[] Padded(int length)
            {
                byte[] array = new byte[length];
                array.AsSpan().Fill(0xCD);
                return array;
            }

            private void Returned(int length)
            {
                lock (_outstanding)
                    _outstanding[length]--;
            }

            private sealed class Tracked : IMemoryOwner<byte>
            {
                private readonly LongerBufferAllocator _allocator;
                private readonly int _length;
                private IMemoryOwner<byte>? _inner;

                public Tracked(IMemoryOwner<byte> inner, LongerBufferAllocator allocator, int length)
                {
                    _inner = inner;
                    _allocator = allocator;
                    _length = length;
                    Assert.True(inner.Memory.Length >= length);
                }

                public Memory<byte> Memory => (_inner ?? throw new ObjectDisposedException(nameof(Tracked))).Memory;

                public void Dispose()
                {
                    IMemoryOwner<byte>? inner = Interlocked.Exchange(ref _inner, null);
                    if (inner is null)
                        return;
                    inner.Dispose();
                    _allocator.Returned(_length);
                }
            }

            private sealed class ArrayPoolOwner : IMemoryOwner<byte>
            {
                private readonly byte[] _array;
                private readonly bool _pooled;

                public ArrayPoolOwner(byte[] array, bool pooled = true)
                {
                    _array = array;
                    _pooled = pooled;
                }

                public Memory<byte> Memory => _array;

                public void Dispose()
                {
                    if (_pooled)
                        ArrayPool<byte>.Shared.Return(_array);
                }
            }
        }
    }
}
