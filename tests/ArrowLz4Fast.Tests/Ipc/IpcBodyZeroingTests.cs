#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// IpcDecompressingStream writes every byte of the body buffer Arrow reads into, so <see cref="SlabMemoryAllocator"/>
    /// leaves that buffer's zeroing to it (<see cref="WholeWriteHandoff"/>). These tests check the output still never
    /// depends on what the memory held, and that a buffer the stream does not write whole is zeroed.
    /// </summary>
    public class IpcBodyZeroingTests
    {
        private const byte Stale = 0xAB;
        private const int Length = 100_000;
        private static readonly SlabMemoryAllocatorOptions NoIdleTrim = new() { IdleTrimDelay = Timeout.InfiniteTimeSpan };

        public static IEnumerable<object[]> Cases() =>
            from file in Corpus.CommittedIpcFiles()
            from degree in new[] { 1, 2 }
            from async in new[] { false, true }
            select new object[] { file, degree, async };

        /// <summary>
        /// The second read through the wrapper gets the body memory of the first, filled with a stale pattern before it
        /// was disposed; its batches must still be the official reader's.
        /// </summary>
        [Theory]
        [MemberData(nameof(Cases))]
        public async Task Batches_read_into_reused_stale_memory_equal_the_official_reader(string file, int degree, bool async)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat: file.EndsWith(".arrow", StringComparison.Ordinal), new OfficialFactory());
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            Lz4FastOptions options = IpcWrapped.Options(degree, 1);
            try
            {
                List<RecordBatch> first = await ReadAll(bytes, options, allocator, async);
                foreach (RecordBatch batch in first)
                    FillBuffers(batch, Stale);
                ArrowData.DisposeAll(first);

                List<RecordBatch> second = await ReadAll(bytes, options, allocator, async);
                try
                {
                    ArrowData.AssertSame(official, second);
                }
                finally
                {
                    ArrowData.DisposeAll(second);
                }
            }
            finally
            {
                ArrowData.DisposeAll(official);
            }
        }

        [Fact]
        public void The_announced_allocation_is_handed_over_unzeroed_and_claimed_by_a_whole_read()
        {
            var (_, handoff, announced) = AnnouncedStaleBuffer();
            using IMemoryOwner<byte> owner = announced;
            Span<byte> span = owner.Memory.Span;

            // Reaching the span did not zero it: the zeroing is the announced writer's.
            Assert.Equal(Stale, span[Length - 1]);
            Assert.True(handoff.Settle(span));
        }

        [Fact]
        public void A_read_into_part_of_the_announced_buffer_zeroes_it_first()
        {
            var (_, handoff, announced) = AnnouncedStaleBuffer();
            using IMemoryOwner<byte> owner = announced;
            Span<byte> span = owner.Memory.Span;

            Assert.False(handoff.Settle(span.Slice(0, Length / 2)));
            Assert.True(span.IndexOfAnyExcept((byte)0) < 0, "the buffer was not zeroed");
        }

        [Fact]
        public void An_allocation_of_another_length_ends_the_announcement()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            Dirty(allocator, Length + 64);
            Dirty(allocator, Length);
            var handoff = new WholeWriteHandoff();

            handoff.Announce(Length);
            using IMemoryOwner<byte> other = allocator.Allocate(Length + 64);
            using IMemoryOwner<byte> owner = allocator.Allocate(Length);

            Assert.True(other.Memory.Span.IndexOfAnyExcept((byte)0) < 0, "the other allocation was not zeroed");
            Assert.True(owner.Memory.Span.IndexOfAnyExcept((byte)0) < 0, "the allocation after the announced one was not zeroed");
            Assert.False(handoff.Settle(owner.Memory.Span));
        }

        [Fact]
        public void Release_zeroes_a_buffer_still_owed_and_ends_the_announcement()
        {
            (SlabMemoryAllocator allocator, WholeWriteHandoff handoff, IMemoryOwner<byte> announced) = AnnouncedStaleBuffer();
            using IMemoryOwner<byte> owner = announced;
            handoff.Release();
            Assert.True(owner.Memory.Span.IndexOfAnyExcept((byte)0) < 0, "the owed buffer was not zeroed");

            handoff.Announce(Length);
            handoff.Release();
            Dirty(allocator, Length);
            using IMemoryOwner<byte> later = allocator.Allocate(Length);
            Assert.True(later.Memory.Span.IndexOfAnyExcept((byte)0) < 0, "a released announcement still deferred zeroing");
        }

        [Fact]
        public void A_deferred_buffer_disposed_and_handed_out_again_is_not_zeroed_under_its_new_owner()
        {
            (SlabMemoryAllocator allocator, WholeWriteHandoff handoff, IMemoryOwner<byte> deferred) = AnnouncedStaleBuffer();
            deferred.Dispose();
            using IMemoryOwner<byte> next = allocator.Allocate(Length);
            next.Memory.Span.Fill(0x5A);

            handoff.Release();
            Assert.False(handoff.Settle(next.Memory.Span));
            Assert.True(next.Memory.Span.IndexOfAnyExcept((byte)0x5A) < 0, "the new owner's bytes were overwritten");
        }

        /// <summary>
        /// Bodies read whole (the zero-copy path) or in halves (the window) into stale allocator buffers announced to the
        /// allocator, so left unzeroed: every byte, padding included, must be the bytes of a plain drain.
        /// </summary>
        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void Bodies_read_into_stale_announced_buffers_are_the_drained_bytes(bool halves)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Corpus.CommittedIpcFiles().First(f => f.Contains("numeric", StringComparison.Ordinal) || f.Contains("strings", StringComparison.Ordinal))));
            byte[] whole = IpcWrapped.Drain(bytes, IpcWrapped.Options(1), new[] { 0 });
            var bodyLengths = new List<int>();
            Walk(
                new MemoryStream(whole, writable: false),
                (_, length) =>
                {
                    if (length >= 0)
                        bodyLengths[bodyLengths.Count - 1] = length;
                },
                length => new byte[length],
                halves: false,
                beforeMessage: () => bodyLengths.Add(0));
            Assert.Contains(bodyLengths, length => length > SlabMemoryOwner.EagerClearLimit);

            // As Arrow reads: each body is a stale allocator buffer allocated right after its metadata.
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(2, 1));
            using var output = new MemoryStream();
            IMemoryOwner<byte>? body = null;
            bool stale = false;
            int message = 0;
            Walk(
                stream,
                (written, _) => output.Write(written.ToArray(), 0, written.Length),
                length =>
                {
                    body?.Dispose();
                    body = allocator.Allocate(length);
                    stale |= body.Memory.Span[length - 1] == Stale;
                    return body.Memory.Span;
                },
                halves,
                beforeMessage: () =>
                {
                    if (message < bodyLengths.Count && bodyLengths[message] > 0)
                        Dirty(allocator, bodyLengths[message]);
                    message++;
                });
            body?.Dispose();
            Assert.True(stale, "no body buffer was handed over unzeroed");
            Assert.Equal(whole, output.ToArray());
        }

        private delegate Span<byte> BodyBuffer(int length);

        private delegate void Written(ReadOnlySpan<byte> bytes, int bodyLength);

        /// <summary>Reads an uncompressed IPC stream message by message, each body into <paramref name="bodyBuffer"/>, whole or in two halves.</summary>
        private static void Walk(Stream stream, Written written, BodyBuffer bodyBuffer, bool halves, Action? beforeMessage = null)
        {
            byte[] prefix = new byte[8];
            while (true)
            {
                beforeMessage?.Invoke();
                if (ReadExactly(stream, prefix, 8) < 8)
                    return;
                written(prefix, -1);
                int metadataLength = BitConverter.ToInt32(prefix, 4);
                if (metadataLength == 0)
                    return;
                byte[] metadata = new byte[metadataLength];
                Assert.Equal(metadataLength, ReadExactly(stream, metadata, metadataLength));
                written(metadata, -1);
                int bodyLength = (int)BodyLength(metadata);
                if (bodyLength == 0)
                    continue;
                Span<byte> span = bodyBuffer(bodyLength);
                int half = halves ? span.Length / 2 : span.Length, got = 0, n;
                while (got < half && (n = stream.Read(span.Slice(got, half - got))) > 0)
                    got += n;
                while (got < span.Length && (n = stream.Read(span.Slice(got))) > 0)
                    got += n;
                Assert.Equal(span.Length, got);
                written(span, bodyLength);
            }
        }

        private static async Task<List<RecordBatch>> ReadAll(byte[] bytes, Lz4FastOptions options, SlabMemoryAllocator allocator, bool async)
        {
            var batches = new List<RecordBatch>();
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(bytes, writable: false), options), allocator, new Lz4FastCodecFactory(new OfficialFactory()), leaveOpen: false);
            while ((async ? await reader.ReadNextRecordBatchAsync() : reader.ReadNextRecordBatch()) is RecordBatch batch)
                batches.Add(batch);
            return batches;
        }

        /// <summary>Fills every buffer of a batch (and its children and dictionaries) with <paramref name="value"/>.</summary>
        private static void FillBuffers(RecordBatch batch, byte value)
        {
            foreach (IArrowArray column in batch.Arrays)
                Fill(column.Data, value);
        }

        private static void Fill(ArrayData data, byte value)
        {
            foreach (ArrowBuffer buffer in data.Buffers)
                MemoryMarshal.AsMemory(buffer.Memory).Span.Fill(value);
            foreach (ArrayData child in data.Children ?? System.Array.Empty<ArrayData>())
                Fill(child, value);
            if (data.Dictionary is not null)
                Fill(data.Dictionary, value);
        }

        /// <summary>An allocator whose next block of <see cref="Length"/> bytes is stale, and that block allocated right after an announcement.</summary>
        private static (SlabMemoryAllocator Allocator, WholeWriteHandoff Handoff, IMemoryOwner<byte> Owner) AnnouncedStaleBuffer()
        {
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            Dirty(allocator, Length);
            var handoff = new WholeWriteHandoff();
            handoff.Announce(Length);
            return (allocator, handoff, allocator.Allocate(Length));
        }

        /// <summary>Leaves a freed, stale block of <paramref name="length"/> bytes for the next allocation of that size.</summary>
        private static void Dirty(SlabMemoryAllocator allocator, int length)
        {
            using IMemoryOwner<byte> owner = allocator.Allocate(length);
            owner.Memory.Span.Fill(Stale);
        }

        private static int ReadExactly(Stream stream, byte[] buffer, int count)
        {
            int got = 0, n;
            while (got < count && (n = stream.Read(buffer, got, count - got)) > 0)
                got += n;
            return got;
        }

        /// <summary>Message.bodyLength (field 3) of a flatbuffer Message: the root table, then its vtable.</summary>
        private static long BodyLength(byte[] metadata)
        {
            int root = BitConverter.ToInt32(metadata, 0);
            int vtable = root - BitConverter.ToInt32(metadata, root);
            int vtableSize = BitConverter.ToUInt16(metadata, vtable);
            const int slot = 4 + (2 * 3);
            if (slot + 2 > vtableSize)
                return 0;
            int field = BitConverter.ToUInt16(metadata, vtable + slot);
            return field == 0 ? 0 : BitConverter.ToInt64(metadata, root + field);
        }
    }
}
#endif
