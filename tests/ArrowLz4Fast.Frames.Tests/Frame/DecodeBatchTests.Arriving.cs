using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatchArriving"/>: a source that arrives while the batch decodes (the IPC stream's
    /// first body from a seekable input, issue #35). The output is DecodeBatch's; no item is read before its range has
    /// arrived (the memory behind the source holds other bytes until then); the fill runs on the calling thread until
    /// the source is there, and the helpers decode meanwhile, claiming items largest first as DecodeBatch does.
    /// </summary>
    public partial class DecodeBatchTests
    {
        [Theory]
        [MemberData(nameof(Degrees))]
        public void Arriving_decodes_as_DecodeBatch_reading_only_what_has_arrived(int degree)
        {
            for (int round = 0; round < 4; round++)
            {
                Batch batch = Batch.Pack(CorpusEntries(), seed: 1000 + (10 * degree) + round);
                // In source order (as the IPC stream lists them) in two rounds, as packed (shuffled) in the others.
                Lz4FrameBatchItem[] items = round % 2 == 0 ? batch.Items.OrderBy(i => i.SourceOffset).ToArray() : batch.Items;
                var arriving = new Arrival(batch.Source, new Random(round), stallEvery: 5);
                byte[] destination = batch.NewDestination(Sentinel);
                byte[] before = destination.ToArray();
                int caller = Environment.CurrentManagedThreadId;
                var alongside = new List<(int Thread, int Arrived)>();

                Lz4FrameDecoder.DecodeBatchArriving(arriving.Memory, destination, items, Options(degree), arriving.Fill, () => alongside.Add((Environment.CurrentManagedThreadId, arriving.Arrived)));

                Assert.Equal(batch.Source.Length, arriving.Arrived);
                Assert.All(arriving.Threads, t => Assert.Equal(caller, t));
                // Once, on the calling thread, after the whole source had arrived.
                Assert.Equal(new[] { (caller, batch.Source.Length) }, alongside);
                AssertDecoded(batch, destination, before);
            }
        }

        /// <summary>
        /// A source slower than memory (a file on a network share): helpers that wait past a millisecond nap between
        /// looks instead of spinning (the CPU this saves is measured in docs/parallel-read.md, not asserted here). The
        /// output is still DecodeBatch's, and a fill that fails after a long wait still ends the call.
        /// </summary>
        [Theory]
        [InlineData(2)]
        [InlineData(8)]
        public void A_slow_source_decodes_as_DecodeBatch(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 1500 + degree);
            Lz4FrameBatchItem[] items = batch.Items.OrderBy(i => i.SourceOffset).ToArray();
            var arriving = new Arrival(batch.Source, new Random(degree), stallEvery: 25, stallMilliseconds: 4);
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();

            Lz4FrameDecoder.DecodeBatchArriving(arriving.Memory, destination, items, Options(degree), arriving.Fill);

            Assert.Equal(batch.Source.Length, arriving.Arrived);
            AssertDecoded(batch, destination, before);

            // A fill that fails after the helpers have waited long enough to nap.
            var memory = new byte[batch.Source.Length];
            byte[] failed = batch.NewDestination(Sentinel);
            var error = Assert.Throws<System.IO.IOException>(() => Lz4FrameDecoder.DecodeBatchArriving(memory, failed, items, Options(degree), arrived =>
            {
                Thread.Sleep(20);
                if (arrived > 0)
                    throw new System.IO.IOException("the input failed");
                batch.Source.AsSpan(0, 1).CopyTo(memory);
                return 1;
            }));
            Assert.Equal("the input failed", error.Message);
            byte[] after = failed.ToArray();
            Thread.Sleep(50);
            Assert.Equal(after, failed);
        }

        [Theory]
        [InlineData(2)]
        [InlineData(8)]
        public void Items_are_decoded_while_the_rest_of_the_source_arrives(int degree)
        {
            // Items are claimed largest first: a batch whose largest item is not the last in the source.
            Batch batch;
            Lz4FrameBatchItem largest;
            int seed = 1100 + degree;
            while (true)
            {
                batch = Batch.Pack(MediumCorpusEntries().Take(4).ToList(), seed++);
                largest = batch.Items.OrderByDescending(i => i.DestinationLength).First();
                if (batch.Items.Any(i => i.SourceOffset > largest.SourceOffset && i.DestinationLength > 0))
                    break;
            }
            int end = largest.SourceOffset + largest.SourceLength;
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            var memory = new byte[batch.Source.Length];
            bool decodedMeanwhile = false;

            Lz4FrameDecoder.DecodeBatchArriving(memory, destination, batch.Items, Options(degree), arrived =>
            {
                // The source up to the end of the largest item arrives; then the fill waits (bounded) until a helper
                // has written that item, before the rest (with at least one other item) arrives.
                if (arrived < end)
                {
                    batch.Source.AsSpan(arrived, end - arrived).CopyTo(memory.AsSpan(arrived));
                    return end;
                }
                var clock = System.Diagnostics.Stopwatch.StartNew();
                while (!decodedMeanwhile && clock.ElapsedMilliseconds < 10_000)
                {
                    Interlocked.MemoryBarrier();
                    decodedMeanwhile = !destination.AsSpan(largest.DestinationOffset, largest.DestinationLength).SequenceEqual(before.AsSpan(largest.DestinationOffset, largest.DestinationLength));
                    Thread.Sleep(1);
                }
                batch.Source.AsSpan(arrived).CopyTo(memory.AsSpan(arrived));
                return memory.Length;
            });

            Assert.True(decodedMeanwhile, "the largest item was not decoded while the rest of the source arrived");
            AssertDecoded(batch, destination, before);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_failing_fill_is_thrown_after_the_helpers_are_done(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 1200 + degree);
            Lz4FrameBatchItem[] items = batch.Items.OrderBy(i => i.SourceOffset).ToArray();
            var memory = new byte[batch.Source.Length];
            byte[] destination = batch.NewDestination(Sentinel);
            int half = memory.Length / 2;

            var error = Assert.Throws<System.IO.IOException>(() => Lz4FrameDecoder.DecodeBatchArriving(memory, destination, items, Options(degree), arrived =>
            {
                if (arrived >= half)
                    throw new System.IO.IOException("the input failed");
                batch.Source.AsSpan(0, half).CopyTo(memory);
                return half;
            }));
            Assert.Equal("the input failed", error.Message);

            // No helper writes after the call returned, and the job is usable again.
            byte[] after = destination.ToArray();
            Thread.Sleep(50);
            Assert.Equal(after, destination);
            var arriving = new Arrival(batch.Source, new Random(7), stallEvery: 0);
            byte[] again = batch.NewDestination(Sentinel);
            Lz4FrameDecoder.DecodeBatchArriving(arriving.Memory, again, items, Options(degree), arriving.Fill);
            AssertDecoded(batch, again, batch.NewDestination(Sentinel));
        }

        [Theory]
        [InlineData(0)]
        [InlineData(-1)]
        [InlineData(1)]
        public void A_fill_that_brings_nothing_or_too_much_is_refused(int step)
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 1300);
            var memory = new byte[batch.Source.Length];
            foreach (int degree in new[] { 1, 2 })
            {
                var error = Assert.Throws<InvalidOperationException>(() => Lz4FrameDecoder.DecodeBatchArriving(memory, batch.NewDestination(Sentinel), batch.Items, Options(degree), arrived =>
                    step == 1 ? memory.Length + 1 : arrived + step));
                Assert.Contains("source fill returned", error.Message, StringComparison.Ordinal);
            }
        }

        [Fact]
        public void Fill_must_be_given()
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 1400);
            Assert.Throws<ArgumentNullException>(() => Lz4FrameDecoder.DecodeBatchArriving(batch.Source, batch.NewDestination(Sentinel), batch.Items, Options(2), null!));
        }

        /// <summary>
        /// A source that arrives in random chunks into memory holding other bytes (so an item read early decodes wrong or
        /// fails), stalling now and then so that helpers reach items that have not arrived.
        /// </summary>
        private sealed class Arrival
        {
            private readonly byte[] _source;
            private readonly Random _random;
            private readonly int _stallEvery;
            private int _calls;

            private readonly int _stallMilliseconds;

            public Arrival(byte[] source, Random random, int stallEvery, int stallMilliseconds = 1)
            {
                _source = source;
                _random = random;
                _stallEvery = stallEvery;
                _stallMilliseconds = stallMilliseconds;
                Memory = new byte[source.Length];
                for (int i = 0; i < Memory.Length; i++)
                    Memory[i] = (byte)~source[i];
            }

            public byte[] Memory { get; }

            public int Arrived { get; private set; }

            public List<int> Threads { get; } = new List<int>();

            public int Fill(int arrived)
            {
                Assert.Equal(Arrived, arrived);
                Threads.Add(Environment.CurrentManagedThreadId);
                _calls++;
                if (_stallEvery > 0 && _calls % _stallEvery == 0)
                    Thread.Sleep(_stallMilliseconds);
                int next = Math.Min(_source.Length, arrived + 1 + _random.Next(1 << _random.Next(4, 17)));
                _source.AsSpan(arrived, next - arrived).CopyTo(Memory.AsSpan(arrived));
                Arrived = next;
                return next;
            }
        }
    }
}
