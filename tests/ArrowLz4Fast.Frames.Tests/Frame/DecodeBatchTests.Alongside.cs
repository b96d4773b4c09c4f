using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatchAlongside"/>: the same output as <see cref="Lz4FrameDecoder.DecodeBatch"/>,
    /// and the work alongside runs exactly once, on the calling thread, while the batch is decoded (the IPC stream's
    /// read-ahead, issue #35).
    /// </summary>
    public partial class DecodeBatchTests
    {
        [Theory]
        [MemberData(nameof(Degrees))]
        public void Alongside_decodes_as_DecodeBatch_and_runs_the_work_once_on_the_calling_thread(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 900 + degree);
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            int caller = Environment.CurrentManagedThreadId;
            var threads = new List<int>();

            Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, destination, batch.Items, Options(degree), () => threads.Add(Environment.CurrentManagedThreadId));

            Assert.Equal(new[] { caller }, threads);
            AssertDecoded(batch, destination, before);
        }

        [Theory]
        [InlineData(2)]
        [InlineData(8)]
        public void A_single_item_is_decoded_by_a_helper_while_the_work_runs(int degree)
        {
            // The work waits (bounded) for the item to be written: only a helper can write it meanwhile.
            Batch batch = Batch.Pack(MediumCorpusEntries().Take(1).ToList(), seed: 950);
            Assert.Single(batch.Items);
            Lz4FrameBatchItem item = batch.Items[0];
            Assert.True(item.DestinationLength > 0);
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            bool decodedMeanwhile = false;

            Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, destination, batch.Items, Options(degree), () =>
            {
                var clock = System.Diagnostics.Stopwatch.StartNew();
                while (!decodedMeanwhile && clock.ElapsedMilliseconds < 10_000)
                {
                    Interlocked.MemoryBarrier();
                    decodedMeanwhile = !destination.AsSpan(item.DestinationOffset, item.DestinationLength).SequenceEqual(before.AsSpan(item.DestinationOffset, item.DestinationLength));
                    Thread.Sleep(1);
                }
            });

            Assert.True(decodedMeanwhile, "the item was not decoded while the calling thread ran the work alongside");
            AssertDecoded(batch, destination, before);
        }

        [Fact]
        public void Alongside_runs_before_a_sequential_batch()
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 960);
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            bool untouched = false;

            Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, destination, batch.Items, Options(1), () => untouched = destination.AsSpan().SequenceEqual(before));

            Assert.True(untouched, "a sequential batch decoded an item before the work alongside ran");
            AssertDecoded(batch, destination, before);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void An_exception_alongside_is_thrown_after_the_helpers_are_done(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 970 + degree);
            byte[] destination = batch.NewDestination(Sentinel);

            var error = Assert.Throws<InvalidOperationException>(() =>
                Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, destination, batch.Items, Options(degree), () => throw new InvalidOperationException("alongside")));
            Assert.Equal("alongside", error.Message);

            // No helper writes after the call returned: the destination stays as the call left it.
            byte[] after = destination.ToArray();
            Thread.Sleep(50);
            Assert.Equal(after, destination);
            // And the job is usable again: the next batch decodes in full.
            byte[] again = batch.NewDestination(Sentinel);
            Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, again, batch.Items, Options(degree), () => { });
            AssertDecoded(batch, again, batch.NewDestination(Sentinel));
        }

        [Fact]
        public void Alongside_must_be_given()
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 980);
            Assert.Throws<ArgumentNullException>(() => Lz4FrameDecoder.DecodeBatchAlongside(batch.Source, batch.NewDestination(Sentinel), batch.Items, Options(2), null!));
        }
    }
}
