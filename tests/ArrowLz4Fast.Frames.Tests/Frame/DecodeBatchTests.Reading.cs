using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatchReading"/>: a source each thread reads itself (a file at positions). The
    /// output is DecodeBatch's; each item's range is read once, before that item is decoded, into memory that holds
    /// other bytes until then; a failing read is thrown as the item's failure or, for an input failure, after the helpers.
    /// </summary>
    public partial class DecodeBatchTests
    {
        [Theory]
        [MemberData(nameof(Degrees))]
        public void Reading_decodes_as_DecodeBatch_each_range_read_once(int degree)
        {
            for (int round = 0; round < 3; round++)
            {
                Batch batch = Batch.Pack(CorpusEntries(), seed: 2000 + (10 * degree) + round);
                // Memory that is not the source until a range is read: an item decoded before its read fails or differs.
                byte[] memory = Enumerable.Repeat((byte)0xA5, batch.Source.Length).ToArray();
                var reads = new ConcurrentBag<(int Offset, int Count)>();
                byte[] destination = batch.NewDestination(Sentinel);
                byte[] before = destination.ToArray();

                Lz4FrameDecoder.DecodeBatchReading(memory, destination, batch.Items, Options(degree), (offset, count) =>
                {
                    reads.Add((offset, count));
                    batch.Source.AsSpan(offset, count).CopyTo(memory.AsSpan(offset, count));
                });

                var expected = batch.Items.Select(i => (i.SourceOffset, i.SourceLength)).OrderBy(r => r).ToList();
                Assert.Equal(expected, reads.OrderBy(r => r).ToList());
                AssertDecoded(batch, destination, before);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_read_that_finds_bad_data_fails_as_its_item(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 2100 + degree);
            var memory = new byte[batch.Source.Length];
            Lz4FrameBatchItem bad = batch.Items[batch.Items.Length / 2];

            var error = Assert.Throws<InvalidDataException>(() => Lz4FrameDecoder.DecodeBatchReading(memory, batch.NewDestination(Sentinel), batch.Items, Options(degree), (offset, count) =>
            {
                if (offset == bad.SourceOffset)
                    throw new InvalidDataException("the input ends early");
                batch.Source.AsSpan(offset, count).CopyTo(memory.AsSpan(offset, count));
            }));
            Assert.Equal("the input ends early", error.Message);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_failing_read_is_thrown_after_the_helpers_are_done(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 2200 + degree);
            var memory = new byte[batch.Source.Length];
            byte[] destination = batch.NewDestination(Sentinel);

            var error = Assert.Throws<IOException>(() => Lz4FrameDecoder.DecodeBatchReading(memory, destination, batch.Items, Options(degree), (offset, count) =>
                throw new IOException("the input failed")));
            Assert.Equal("the input failed", error.Message);

            // No helper writes after the call returned, and the job is usable again.
            byte[] after = destination.ToArray();
            Thread.Sleep(50);
            Assert.Equal(after, destination);
            byte[] again = batch.NewDestination(Sentinel);
            Lz4FrameDecoder.DecodeBatchReading(memory, again, batch.Items, Options(degree), (offset, count) => batch.Source.AsSpan(offset, count).CopyTo(memory.AsSpan(offset, count)));
            AssertDecoded(batch, again, batch.NewDestination(Sentinel));
        }

        [Fact]
        public void Read_must_be_given()
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 2300);
            Assert.Throws<ArgumentNullException>(() => Lz4FrameDecoder.DecodeBatchReading(batch.Source, batch.NewDestination(Sentinel), batch.Items, Options(2), null!));
        }
    }
}
