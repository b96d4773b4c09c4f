using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Hash.xxHash;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>DecodeBatch's failures (named and located as Decode reports the frame alone) and concurrent batches.</summary>
    public partial class DecodeBatchTests
    {
        // ---------------------------------------------------------------- errors

        [Theory]
        [MemberData(nameof(CorpusFilesAndDegrees))]
        public void Every_corpus_file_among_good_items_fails_or_decodes_as_Decode_does_with_it_alone(string file, int degree)
        {
            byte[] frame = File.ReadAllBytes(file);
            FrameOutcome reference = FrameStreams.Reference(frame);
            int length = reference.Output.Length;
            List<Entry> fillers = SmallCorpusEntries();
            foreach (int declared in new[] { length, length - 1, length + 1, 0, 13, 65536 }.Where(l => l >= 0).Distinct())
            {
                int index = (declared + frame.Length) % (fillers.Count + 1);
                var entries = fillers.ToList();
                entries.Insert(index, Entry.Frame(Path.GetFileName(file), frame, declared));
                Batch batch = Batch.Pack(entries, seed: declared ^ frame.Length ^ degree);
                AssertFailsAsAlone(batch, Options(degree), index);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_corrupt_item_among_good_ones_is_named_and_located_in_the_source(int degree)
        {
            // Small fillers, and every fourth batch medium ones (a few MB: the corrupt item is then not the largest).
            List<Entry> small = SmallCorpusEntries(), medium = MediumCorpusEntries();
            List<(string Name, byte[] Frame, int Length)> mutants = Mutants();
            Assert.True(mutants.Count >= 12, $"only {mutants.Count} mutants fail alone");
            for (int m = 0; m < mutants.Count; m++)
            {
                List<Entry> fillers = m % 4 == 0 ? medium : small;
                int index = m % (fillers.Count + 1);
                var entries = fillers.ToList();
                entries.Insert(index, Entry.Frame(mutants[m].Name, mutants[m].Frame, mutants[m].Length));
                Batch batch = Batch.Pack(entries, seed: m * 31 + degree);
                Assert.Equal(Outcome.Corrupt, Alone(entries[index], Options(degree)).Kind);
                AssertFailsAsAlone(batch, Options(degree), index);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Of_two_corrupt_items_the_lower_index_is_reported_whatever_their_sizes_and_timing(int degree)
        {
            List<Entry> fillers = SmallCorpusEntries();
            (string Name, byte[] Frame, int Length) small = Mutant("frames/cli_text13_B4D_L9_fds_bx_size.lz4", Truncate(5));
            (string Name, byte[] Frame, int Length) bigLate = Mutant("frames/cli_words1m_B6I_L9_bx_size.lz4", FlipContentChecksum);
            (string Name, byte[] Frame, int Length) bigEarly = Mutant("frames/cli_zeros4m_B5I_L12_bx.lz4", FlipFirstBlock);
            Assert.True(small.Length < 1000 && bigLate.Length >= 1 << 20 && bigEarly.Length >= 4 << 20);
            var cases = new[]
            {
                (First: small, Second: bigLate),
                (First: small, Second: bigEarly),
                (First: bigLate, Second: small),
                (First: bigEarly, Second: small),
                (First: bigLate, Second: bigEarly),
                (First: bigEarly, Second: bigLate),
            };
            for (int round = 0; round < 5; round++)
            {
                foreach (var (first, second) in cases)
                {
                    var entries = fillers.ToList();
                    int low = 1 + round % 3;
                    int high = entries.Count - round % 2;
                    entries.Insert(high, Entry.Frame(second.Name, second.Frame, second.Length));
                    entries.Insert(low, Entry.Frame(first.Name, first.Frame, first.Length));
                    Batch batch = Batch.Pack(entries, seed: round * 7 + degree);
                    Assert.Equal(Outcome.Corrupt, Alone(batch.Entries[high + 1], Options(degree)).Kind);
                    AssertFailsAsAlone(batch, Options(degree), low);
                }
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void An_item_declaring_a_wrong_length_is_named_and_nothing_is_written_outside_it(int degree)
        {
            List<Entry> fillers = SmallCorpusEntries();
            var frames = ValidCorpusFrames()
                .Where(f => f.Content.Length < (1 << 20))
                .GroupBy(f => string.Join(",", Kinds(f.Frame)))
                .Select(g => g.First())
                .ToList();
            Assert.True(frames.Count >= 8);
            Assert.Contains(frames, f => f.Content.Length == 0);
            int round = 0;
            foreach (CorpusFrame frame in frames)
            {
                foreach (int declared in new[] { frame.Content.Length - 1, frame.Content.Length - 64, 0, frame.Content.Length + 1, frame.Content.Length + 4096 }.Where(l => l >= 0 && l != frame.Content.Length).Distinct())
                {
                    int index = round++ % (fillers.Count + 1);
                    var entries = fillers.ToList();
                    entries.Insert(index, Entry.Frame(frame.Name, frame.Frame, declared));
                    Batch batch = Batch.Pack(entries, seed: round + degree);
                    Assert.Equal(Outcome.WrongLength, Alone(entries[index], Options(degree)).Kind);
                    (Exception? error, _) = AssertFailsAsAlone(batch, Options(degree), index);
                    Assert.Matches($@"\b{declared}\b", FrameErrors.Of(error).Message); // the declared length is named
                }
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_frame_naming_a_dictionary_is_not_supported(int degree)
        {
            List<Entry> fillers = SmallCorpusEntries();
            CorpusFrame plain = ValidCorpusFrames().First(f => f.Name.EndsWith("cli_words1m_B6I_L9_bx_size.lz4", StringComparison.Ordinal));
            CorpusFrame text = ValidCorpusFrames().First(f => f.Name.EndsWith("cli_text13_B7D_L12_bx.lz4", StringComparison.Ordinal));
            byte[] built = WithDictionaryId(plain.Frame, 0xC0FFEE);
            var dictionaryEntries = new List<Entry>
            {
                Entry.Frame("malformed/dict_id_present.lz4", File.ReadAllBytes(Corpus.Committed("malformed/dict_id_present.lz4")), 65535),
                Entry.Frame("liblz4-agreement/dict-id-frame.lz4", File.ReadAllBytes(Corpus.Committed("liblz4-agreement/dict-id-frame.lz4")), 0),
                Entry.Frame("words1m with a dictionary ID", built, plain.Content.Length),
                // The dictionary frame second in its item: the offset is where that frame starts in the source.
                Entry.Frame("text13 then words1m with a dictionary ID", text.Frame.Concat(built).ToArray(), text.Content.Length + plain.Content.Length),
            };
            for (int d = 0; d < dictionaryEntries.Count; d++)
            {
                int index = (d * 3) % (fillers.Count + 1);
                var entries = fillers.ToList();
                entries.Insert(index, dictionaryEntries[d]);
                Batch batch = Batch.Pack(entries, seed: d + degree);
                Assert.Equal(Outcome.Dictionary, Alone(entries[index], Options(degree)).Kind);
                AssertFailsAsAlone(batch, Options(degree), index);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_dictionary_item_and_a_corrupt_item_report_whichever_comes_first(int degree)
        {
            List<Entry> fillers = SmallCorpusEntries();
            byte[] dictionary = File.ReadAllBytes(Corpus.Committed("malformed/dict_id_present.lz4"));
            (string Name, byte[] Frame, int Length) corrupt = Mutant("frames/cli_words1m_B6I_L9_bx_size.lz4", FlipContentChecksum);
            foreach (bool dictionaryFirst in new[] { true, false })
            {
                var entries = fillers.ToList();
                Entry d = Entry.Frame("dict_id_present.lz4", dictionary, 65535);
                Entry c = Entry.Frame(corrupt.Name, corrupt.Frame, corrupt.Length);
                entries.Insert(2, dictionaryFirst ? c : d);
                entries.Insert(1, dictionaryFirst ? d : c);
                Batch batch = Batch.Pack(entries, seed: degree + (dictionaryFirst ? 1 : 0));
                AssertFailsAsAlone(batch, Options(degree), 1);
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Ranges_outside_the_source_or_destination_are_out_of_range(int degree)
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 700 + degree);
            int s = batch.Source.Length, d = batch.DestinationLength;
            Lz4FrameBatchItem good = batch.Items[0];
            var bad = new (string What, Lz4FrameBatchItem Item)[]
            {
                ("negative source offset", new(-1, good.SourceLength, good.DestinationOffset, good.DestinationLength)),
                ("negative source length", new(good.SourceOffset, -1, good.DestinationOffset, good.DestinationLength)),
                ("source one byte too long", new(s - good.SourceLength + 1, good.SourceLength, good.DestinationOffset, good.DestinationLength)),
                ("source offset past the end", new(s + 1, 0, good.DestinationOffset, good.DestinationLength)),
                ("source end overflowing int", new(int.MaxValue - 2, 10, good.DestinationOffset, good.DestinationLength)),
                ("negative destination offset", new(good.SourceOffset, good.SourceLength, -8, good.DestinationLength)),
                ("negative destination length", new(good.SourceOffset, good.SourceLength, good.DestinationOffset, -1)),
                ("destination one byte too long", new(good.SourceOffset, good.SourceLength, d - good.DestinationLength + 1, good.DestinationLength)),
                ("destination end overflowing int", new(good.SourceOffset, good.SourceLength, int.MaxValue - 2, 10)),
                ("stored, source too long", new(s - 9, 10, 0, 10, stored: true)),
                ("stored, negative lengths", new(0, -1, 0, -1, stored: true)),
            };
            foreach ((string what, Lz4FrameBatchItem item) in bad)
            {
                foreach (int index in new[] { 0, 3, batch.Items.Length })
                {
                    var items = batch.Items.ToList();
                    items.Insert(index, item);
                    Exception? error = Record.Exception(() => Lz4FrameDecoder.DecodeBatch(batch.Source, batch.NewDestination(Sentinel), items.ToArray(), Options(degree)));
                    Assert.True(error is ArgumentOutOfRangeException { ParamName: "items" }, $"{what} at index {index}: {error}");
                    Assert.Matches($@"\bItem {index}\b", error!.Message);
                }
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_stored_item_with_unequal_lengths_is_an_argument_error(int degree)
        {
            Batch batch = Batch.Pack(SmallCorpusEntries(), seed: 800 + degree);
            foreach ((int sourceLength, int destinationLength) in new[] { (10, 9), (9, 10), (0, 1), (1, 0) })
            {
                foreach (int index in new[] { 0, 2, batch.Items.Length })
                {
                    var items = batch.Items.ToList();
                    items.Insert(index, new Lz4FrameBatchItem(0, sourceLength, 0, destinationLength, stored: true));
                    var error = Assert.Throws<ArgumentException>(() => Lz4FrameDecoder.DecodeBatch(batch.Source, batch.NewDestination(Sentinel), items.ToArray(), Options(degree)));
                    Assert.Equal("items", error.ParamName);
                    Assert.Matches($@"\bItem {index}\b", error.Message);
                }
            }
        }

        // ---------------------------------------------------------------- batches longer than one part

        [Theory]
        [InlineData(65534, 2)]
        [InlineData(65535, 2)]
        [InlineData(65536, 8)]
        [InlineData(70000, 2)]
        [InlineData(70000, 8)]
        [InlineData(140000, 2)]
        public void Batches_of_more_items_than_one_part_holds_decode_every_item(int count, int degree)
        {
            List<Entry> entries = TinyEntries(count);
            Batch batch = Batch.Pack(entries, seed: count + degree);
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();

            Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, Options(degree));

            AssertDecoded(batch, destination, before, expected: entries.Select(e => e.Content!).ToList());
        }

        [Theory]
        [InlineData(2)]
        [InlineData(8)]
        public void In_a_batch_of_several_parts_the_first_failing_item_of_any_part_is_reported(int degree)
        {
            List<Entry> entries = TinyEntries(70_000);
            foreach (int[] corrupt in new[] { new[] { 66_000 }, new[] { 65_533 }, new[] { 65_534 }, new[] { 69_999 }, new[] { 5, 69_000 }, new[] { 65_533, 65_534 }, new[] { 65_534, 69_999 } })
            {
                var mutated = entries.ToList();
                foreach (int index in corrupt)
                {
                    byte[] frame = mutated[index].Bytes.ToArray();
                    frame[^1] ^= 0x10; // the end mark or the content checksum
                    mutated[index] = Entry.Frame($"tiny {index}, corrupt", frame, mutated[index].DestinationLength);
                    Assert.Equal(Outcome.Corrupt, Alone(mutated[index], Options(degree)).Kind);
                }
                Batch batch = Batch.Pack(mutated, seed: corrupt[0]);
                (_, byte[] destination) = AssertFailsAsAlone(batch, Options(degree), corrupt[0]);
                // Parallel, every other item is decoded before the exception is thrown.
                for (int i = 0; i < batch.Items.Length; i += 997)
                {
                    if (corrupt.Contains(i))
                        continue;
                    Lz4FrameBatchItem item = batch.Items[i];
                    Assert.True(entries[i].Content.AsSpan().SequenceEqual(destination.AsSpan(item.DestinationOffset, item.DestinationLength)), $"item {i}");
                }
            }
        }

        // ---------------------------------------------------------------- concurrency

        [Fact]
        public async Task Concurrent_batches_from_thread_pool_tasks_all_decode_right()
        {
            List<Entry> entries = SmallCorpusEntries().Concat(TinyEntries(300)).ToList();
            List<byte[]> expected = entries.Select(e => Expected(e, Options(2))).ToList();
            var batches = Enumerable.Range(0, 32).Select(t => Batch.Pack(entries, seed: 900 + t)).ToArray();
            var tasks = batches.Select((batch, t) => Task.Run(() =>
            {
                byte[] before = batch.NewDestination(Sentinel);
                for (int round = 0; round < 4; round++)
                {
                    byte[] destination = before.ToArray();
                    Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, Options(2));
                    AssertDecoded(batch, destination, before, expected: expected);
                }
            })).ToArray();
            await Task.WhenAll(tasks);
        }
    }
}
