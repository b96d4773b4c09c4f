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
    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatch"/>: the real corpus's frames, each decoded into its own place of one
    /// destination, at 1, 2 and 8 threads with a minimum length of 1 (so every batch of two or more items goes
    /// parallel). Every item must hold exactly what <see cref="Lz4FrameDecoder.Decode"/> gives for its frame alone,
    /// nothing may be written between the items, and a failing item must be reported as Decode reports its frame alone:
    /// named, and located in the batch's source.
    /// </summary>
    public class DecodeBatchTests
    {
        internal const byte Sentinel = 0xCD;

        public static IEnumerable<object[]> Degrees() => new[] { 1, 2, 8 }.Select(d => new object[] { d });

        public static IEnumerable<object[]> CorpusFilesAndDegrees() =>
            FrameStreams.AllFrameFiles().SelectMany(f => new[] { 1, 2, 8 }.Select(d => new object[] { f, d }));

        internal static Lz4FrameDecoderOptions Options(int degree, bool verifyChecksums = true) =>
            new(verifyChecksums, new Lz4Parallelism(degree, 1));

        // ---------------------------------------------------------------- valid batches

        [Fact]
        public void The_batch_corpus_has_frames_of_every_kind()
        {
            List<CorpusFrame> frames = ValidCorpusFrames();
            Assert.True(frames.Count >= 40, $"only {frames.Count} valid corpus frames");
            var kinds = frames.Select(f => Kinds(f.Frame)).ToList();
            foreach (string kind in new[] { "linked", "independent", "content checksum", "block checksum", "content size", "uncompressed block", "multiple frames", "skippable frame", "empty" })
                Assert.True(kinds.Any(k => k.Contains(kind)), $"no valid corpus frame with {kind}");
            Assert.Contains(frames, f => f.Content.Length >= 4 << 20);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Every_valid_corpus_frame_decodes_into_its_own_place_as_Decode_decodes_it_alone(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 100 + degree);
            Assert.True(batch.Items.Length >= 60);
            Assert.Contains(batch.Items, i => i.Stored);
            DecodeIntoSentinelAndCheck(batch, degree);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void The_output_does_not_depend_on_what_the_destination_held(int degree)
        {
            Batch batch = Batch.Pack(CorpusEntries(), seed: 200 + degree);
            byte[] zeros = batch.NewDestination(0x00);
            byte[] noise = batch.NewDestination(0x00);
            new Random(degree).NextBytes(noise);
            byte[] noiseBefore = noise.ToArray();

            Lz4FrameDecoder.DecodeBatch(batch.Source, zeros, batch.Items, Options(degree));
            Lz4FrameDecoder.DecodeBatch(batch.Source, noise, batch.Items, Options(degree));

            for (int i = 0; i < batch.Items.Length; i++)
            {
                Lz4FrameBatchItem item = batch.Items[i];
                Assert.True(
                    zeros.AsSpan(item.DestinationOffset, item.DestinationLength).SequenceEqual(noise.AsSpan(item.DestinationOffset, item.DestinationLength)),
                    $"item {i} ({batch.Entries[i].Name}) decodes differently over zeros and over noise");
            }
            AssertDecoded(batch, zeros, new byte[zeros.Length]);
            AssertDecoded(batch, noise, noiseBefore);
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Real_ipc_buffers_of_every_producer_decode_in_one_batch_to_the_reference_bytes(int degree)
        {
            List<(byte[] Frame, int Length, string Sha256)> buffers = CorpusBuffers.AllProfiles();
            AssertIpcBatch(buffers, degree, seed: 300 + degree);
        }

        [SharedCorpusTheory]
        [InlineData("ipc/pyarrow/numeric.arrows")]
        [InlineData("ipc/rust/numeric.arrows")]
        [InlineData("ipc/java/numeric.arrows")]
        [InlineData("ipc/java/incompressible.arrows")]
        public void Real_ipc_buffers_of_the_large_shared_streams_decode_in_one_batch_to_the_reference_bytes(string file)
        {
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory(new Lz4FastOptions { MaxDegreeOfParallelism = 1 }));
            ArrowData.DisposeAll(ArrowData.ReadAll(Corpus.Shared(file), recorder));
            var buffers = recorder.Inputs.Zip(recorder.Decompressed, (i, d) => (i.Frame, i.Length, d.Sha256)).ToList();
            Assert.NotEmpty(buffers);
            foreach (int degree in new[] { 1, 2, 8 })
                AssertIpcBatch(buffers, degree, seed: file.Length * 10 + degree);
        }

        private static void AssertIpcBatch(List<(byte[] Frame, int Length, string Sha256)> buffers, int degree, int seed)
        {
            var entries = new List<Entry>();
            var digests = new List<(int Entry, string Sha256)>();
            for (int i = 0; i < buffers.Count; i++)
            {
                digests.Add((entries.Count, buffers[i].Sha256));
                // An empty compressed buffer is an empty one (no frame at all): a container passes it as a stored item.
                if (buffers[i].Frame.Length == 0)
                {
                    Assert.Equal(0, buffers[i].Length);
                    entries.Add(Entry.Raw($"ipc buffer {i}, empty", Array.Empty<byte>()));
                }
                else
                {
                    entries.Add(Entry.Frame($"ipc buffer {i}", buffers[i].Frame, buffers[i].Length));
                }
                // Arrow stores a buffer uncompressed when compressing does not pay: some real bytes as stored items.
                if (i % 5 == 0)
                    entries.Add(Entry.Raw($"ipc buffer {i}, stored", buffers[i].Frame));
            }
            Batch batch = Batch.Pack(entries, seed);
            byte[] destination = DecodeIntoSentinelAndCheck(batch, degree);
            Assert.Contains(batch.Items, i => !i.Stored && i.DestinationLength > 0);
            foreach ((int entry, string sha) in digests)
            {
                Lz4FrameBatchItem item = batch.Items[entry];
                Assert.Equal(sha, Hex.Sha256(destination.AsSpan(item.DestinationOffset, item.DestinationLength)));
            }
        }

        [Fact]
        public void Helper_threads_decode_items_of_the_batch()
        {
            if (Environment.ProcessorCount < 2)
                return; // no helper thread on one core: the caller decodes every item
            Batch batch = Batch.Pack(MediumCorpusEntries(), seed: 400);
            byte[] before = batch.NewDestination(Sentinel);
            using var events = new FramesEvents();
            int calls = events.CallUntilAHelperWorks(_ =>
            {
                byte[] destination = before.ToArray();
                Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, Options(2));
                AssertDecoded(batch, destination, before);
            });
            Assert.True(events.HelperBlocksForThisThread() > 0, $"no helper thread decoded an item of the batch in {calls} calls over a minute");
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Checksums_are_verified_or_not_as_the_options_say(int degree)
        {
            // A real frame with a content checksum, its checksum's last byte flipped: every block is intact.
            CorpusFrame original = ValidCorpusFrames().First(f => f.Name.EndsWith("cli_words1m_B6I_L9_bx_size.lz4", StringComparison.Ordinal));
            Assert.Contains("content checksum", Kinds(original.Frame));
            byte[] bad = original.Frame.ToArray();
            bad[^1] ^= 0x01;
            var entries = MediumCorpusEntries().Take(6).ToList();
            entries.Insert(3, Entry.Frame("bad content checksum", bad, original.Content.Length));
            Batch batch = Batch.Pack(entries, seed: 500 + degree);

            AssertFailsAsAlone(batch, Options(degree), 3);

            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, Options(degree, verifyChecksums: false));
            AssertDecoded(batch, destination, before, verifyChecksums: false);
            Lz4FrameBatchItem item = batch.Items[3];
            Assert.True(original.Content.AsSpan().SequenceEqual(destination.AsSpan(item.DestinationOffset, item.DestinationLength)));
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Default_and_sequential_options_and_a_large_minimum_length_decode_the_same(int degree)
        {
            Batch batch = Batch.Pack(MediumCorpusEntries(), seed: 600 + degree);
            byte[] before = batch.NewDestination(Sentinel);
            foreach (Lz4FrameDecoderOptions options in new[] { default, new Lz4FrameDecoderOptions(true, new Lz4Parallelism(degree)), new Lz4FrameDecoderOptions(true, new Lz4Parallelism(degree, int.MaxValue)), Options(degree) })
            {
                byte[] destination = before.ToArray();
                Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, options);
                AssertDecoded(batch, destination, before);
            }
        }

        // ---------------------------------------------------------------- empty and single

        [Theory]
        [MemberData(nameof(Degrees))]
        public void An_empty_item_list_is_a_no_op(int degree)
        {
            byte[] source = ValidCorpusFrames()[0].Frame;
            var destination = new byte[1000];
            destination.AsSpan().Fill(Sentinel);
            Lz4FrameDecoder.DecodeBatch(source, destination, ReadOnlySpan<Lz4FrameBatchItem>.Empty, Options(degree));
            Assert.All(destination, b => Assert.Equal(Sentinel, b));
            Lz4FrameDecoder.DecodeBatch(ReadOnlySpan<byte>.Empty, Span<byte>.Empty, Array.Empty<Lz4FrameBatchItem>(), Options(degree));
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void A_single_item_decodes_compressed_or_stored(int degree)
        {
            foreach (CorpusFrame frame in ValidCorpusFrames().Where(f => f.Content.Length is > 0 and < (1 << 20)).Take(8))
            {
                foreach (Entry entry in new[] { Entry.Frame(frame.Name, frame.Frame, frame.Content.Length), Entry.Raw(frame.Name + ", stored", frame.Content) })
                {
                    Batch batch = Batch.Pack(new[] { entry }, seed: frame.Frame.Length + degree);
                    DecodeIntoSentinelAndCheck(batch, degree);
                }
            }
        }

        [Theory]
        [MemberData(nameof(Degrees))]
        public void Zero_length_items_at_the_very_end_of_the_source_and_destination_are_in_range(int degree)
        {
            CorpusFrame empty = ValidCorpusFrames().First(f => f.Content.Length == 0);
            CorpusFrame text = ValidCorpusFrames().First(f => f.Content.Length is > 1000 and < 100_000);
            byte[] source = text.Frame.Concat(empty.Frame).ToArray();
            var destination = new byte[text.Content.Length];
            Lz4FrameBatchItem[] items =
            {
                new(0, text.Frame.Length, 0, text.Content.Length),
                new(text.Frame.Length, empty.Frame.Length, destination.Length, 0),
                new(source.Length, 0, destination.Length, 0, stored: true),
            };
            Lz4FrameDecoder.DecodeBatch(source, destination, items, Options(degree));
            Assert.True(text.Content.AsSpan().SequenceEqual(destination));
        }

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

        // ---------------------------------------------------------------- the batch oracle

        internal enum Outcome
        {
            Decodes,
            Corrupt,
            WrongLength,
            Dictionary,
        }

        /// <summary>What <see cref="Lz4FrameDecoder.Decode"/> does with an entry's frame alone, into a destination of exactly the declared length.</summary>
        internal static (Outcome Kind, long Offset, string? Message, byte[]? Output) Alone(Entry entry, Lz4FrameDecoderOptions options)
        {
            if (entry.Stored)
                return (Outcome.Decodes, 0, null, entry.Bytes);
            // A valid corpus frame at its own length: its content is what Decode gave for it into exactly that length
            // (ValidCorpusFrames), and a tiny frame's is the input it was encoded from.
            if (entry.Content != null && entry.Content.Length == entry.DestinationLength)
                return (Outcome.Decodes, 0, null, entry.Content);
            var output = new byte[entry.DestinationLength];
            var sequential = new Lz4FrameDecoderOptions(options.VerifyChecksums, Lz4Parallelism.Sequential);
            try
            {
                Lz4FrameDecodeStatus status = Lz4FrameDecoder.Decode(entry.Bytes, output, out int consumed, out int written, sequential);
                if (status == Lz4FrameDecodeStatus.DictionaryRequired)
                    return (Outcome.Dictionary, consumed, null, null);
                if (status == Lz4FrameDecodeStatus.Done && written == output.Length)
                {
                    Assert.Equal(entry.Bytes.Length, consumed);
                    return (Outcome.Decodes, 0, null, output);
                }
                return (Outcome.WrongLength, consumed, null, null);
            }
            catch (InvalidDataException e)
            {
                return (Outcome.Corrupt, FrameErrors.Of(e).Offset, e.Message, null);
            }
        }

        internal static byte[] Expected(Entry entry, Lz4FrameDecoderOptions options)
        {
            var alone = Alone(entry, options);
            Assert.True(alone.Kind == Outcome.Decodes, $"{entry.Name} does not decode alone to its declared {entry.DestinationLength} bytes: {alone.Kind} {alone.Message}");
            return alone.Output!;
        }

        /// <summary>
        /// Runs the batch, which must fail as item <paramref name="index"/> fails alone (every item before it must decode
        /// alone). Returns the exception and the destination the failed call left: nothing written outside the items, and, when it went
        /// parallel, every other good item decoded; sequentially, every item before the failing one.
        /// </summary>
        internal static (Exception? Error, byte[] Destination) AssertFailsAsAlone(Batch batch, Lz4FrameDecoderOptions options, int index)
        {
            for (int i = 0; i < index; i++)
                Assert.True(Alone(batch.Entries[i], options).Kind == Outcome.Decodes, $"item {i} ({batch.Entries[i].Name}) before {index} fails alone");
            var alone = Alone(batch.Entries[index], options);
            Lz4FrameBatchItem item = batch.Items[index];
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            Exception? error = Record.Exception(() => Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, options));
            string where = $"item {index} ({batch.Entries[index].Name}, {item})";
            switch (alone.Kind)
            {
                case Outcome.Decodes:
                    Assert.True(error == null, $"{where} decodes alone but the batch threw {error}");
                    AssertDecoded(batch, destination, before, options.VerifyChecksums);
                    return (error, destination);
                case Outcome.Corrupt:
                {
                    Lz4FrameException detail = FrameErrors.Of(error);
                    Assert.Matches($@"\bbatch item {index}\b", detail.Message);
                    Assert.Equal(item.SourceOffset + alone.Offset, detail.Offset);
                    Assert.Contains(alone.Message!, detail.Message, StringComparison.Ordinal);
                    break;
                }
                case Outcome.WrongLength:
                {
                    Lz4FrameException detail = FrameErrors.Of(error);
                    Assert.Matches($@"\bbatch item {index}\b", detail.Message);
                    Assert.InRange(detail.Offset, (long)item.SourceOffset, (long)item.SourceOffset + item.SourceLength);
                    Assert.Equal(item.SourceOffset + alone.Offset, detail.Offset);
                    break;
                }
                default:
                {
                    NotSupportedException detail = Assert.IsType<NotSupportedException>(error);
                    Assert.Contains($"byte offset {item.SourceOffset + alone.Offset} ", detail.Message, StringComparison.Ordinal);
                    break;
                }
            }

            // Nothing outside the items was written; the items that decode alone hold their bytes: all of them when
            // the batch went parallel (every item is tried), those before the failing one when it ran in order.
            bool parallel = options.Parallelism.IsParallel && batch.Items.Length >= 2 && batch.Items.Sum(i => (long)i.DestinationLength) >= options.Parallelism.MinimumLength;
            var inItem = new bool[destination.Length];
            for (int i = 0; i < batch.Items.Length; i++)
            {
                Lz4FrameBatchItem other = batch.Items[i];
                inItem.AsSpan(other.DestinationOffset, other.DestinationLength).Fill(true);
                if (i == index || (!parallel && i > index))
                    continue;
                var result = Alone(batch.Entries[i], options);
                if (result.Kind != Outcome.Decodes)
                    continue;
                AssertRange(batch, i, destination, result.Output!);
            }
            AssertOutsideUnchanged(destination, before, inItem);
            return (error, destination);
        }

        // ---------------------------------------------------------------- batches

        /// <summary>One entry of a batch under test: a frame (or stored bytes) and the length it is declared to decode to.</summary>
        internal sealed record Entry(string Name, byte[] Bytes, int DestinationLength, bool Stored, byte[]? Content)
        {
            public static Entry Frame(string name, byte[] frame, int length, byte[]? content = null) => new(name, frame, length, false, content);

            public static Entry Raw(string name, byte[] content) => new(name, content, content.Length, true, content);
        }

        /// <summary>Entries packed into one source, in a shuffled order with junk between them, and placed at shuffled 8-byte-aligned places of a destination, with gaps.</summary>
        internal sealed class Batch
        {
            private Batch(IReadOnlyList<Entry> entries, byte[] source, Lz4FrameBatchItem[] items, int destinationLength)
            {
                Entries = entries;
                Source = source;
                Items = items;
                DestinationLength = destinationLength;
            }

            public IReadOnlyList<Entry> Entries { get; }

            public byte[] Source { get; }

            public Lz4FrameBatchItem[] Items { get; }

            public int DestinationLength { get; }

            public byte[] NewDestination(byte fill)
            {
                var destination = new byte[DestinationLength];
                destination.AsSpan().Fill(fill);
                return destination;
            }

            public static Batch Pack(IReadOnlyList<Entry> entries, int seed)
            {
                var random = new Random(seed);
                int n = entries.Count;
                var sourceOffsets = new int[n];
                var destinationOffsets = new int[n];

                long sourceLength = 0;
                foreach (int i in Shuffled(n, random))
                {
                    sourceLength += random.Next(0, 40);
                    sourceOffsets[i] = checked((int)sourceLength);
                    sourceLength += entries[i].Bytes.Length;
                }
                var source = new byte[checked((int)sourceLength + random.Next(1, 40))];
                random.NextBytes(source);
                for (int i = 0; i < n; i++)
                    entries[i].Bytes.CopyTo(source.AsSpan(sourceOffsets[i]));

                long position = 8 * random.Next(0, 4);
                foreach (int i in Shuffled(n, random))
                {
                    destinationOffsets[i] = checked((int)position);
                    position = (position + entries[i].DestinationLength + 7) & ~7L;
                    // Most items have a gap of 8 to 32 bytes after them; some end where the next starts.
                    if (random.Next(4) != 0)
                        position += 8 * random.Next(1, 5);
                }
                int destinationLength = checked((int)position + 8 * random.Next(1, 4));

                var items = new Lz4FrameBatchItem[n];
                for (int i = 0; i < n; i++)
                    items[i] = new Lz4FrameBatchItem(sourceOffsets[i], entries[i].Bytes.Length, destinationOffsets[i], entries[i].DestinationLength, entries[i].Stored);
                return new Batch(entries, source, items, destinationLength);
            }

            private static int[] Shuffled(int n, Random random)
            {
                int[] order = Enumerable.Range(0, n).ToArray();
                for (int i = n - 1; i > 0; i--)
                {
                    int j = random.Next(i + 1);
                    (order[i], order[j]) = (order[j], order[i]);
                }
                return order;
            }
        }

        /// <summary>Decodes the batch into a sentinel-filled destination, checks every item and every gap, and returns it.</summary>
        private static byte[] DecodeIntoSentinelAndCheck(Batch batch, int degree)
        {
            byte[] destination = batch.NewDestination(Sentinel);
            byte[] before = destination.ToArray();
            Lz4FrameDecoder.DecodeBatch(batch.Source, destination, batch.Items, Options(degree));
            AssertDecoded(batch, destination, before);
            return destination;
        }

        /// <summary>Every item holds what Decode gives for its frame alone (or its stored bytes); every byte outside the items is as it was.</summary>
        internal static void AssertDecoded(Batch batch, byte[] destination, byte[] before, bool verifyChecksums = true, IReadOnlyList<byte[]>? expected = null)
        {
            var options = new Lz4FrameDecoderOptions(verifyChecksums);
            var inItem = new bool[destination.Length];
            for (int i = 0; i < batch.Items.Length; i++)
            {
                Lz4FrameBatchItem item = batch.Items[i];
                AssertRange(batch, i, destination, expected?[i] ?? Expected(batch.Entries[i], options));
                inItem.AsSpan(item.DestinationOffset, item.DestinationLength).Fill(true);
            }
            AssertOutsideUnchanged(destination, before, inItem);
        }

        private static void AssertRange(Batch batch, int i, byte[] destination, byte[] expected)
        {
            Lz4FrameBatchItem item = batch.Items[i];
            Assert.Equal(item.DestinationLength, expected.Length);
            ReadOnlySpan<byte> actual = destination.AsSpan(item.DestinationOffset, item.DestinationLength);
            if (!actual.SequenceEqual(expected))
            {
                int at = 0;
                while (actual[at] == expected[at])
                    at++;
                Assert.Fail($"item {i} ({batch.Entries[i].Name}, {item}) differs from Decode's output at byte {at} of {expected.Length}: 0x{actual[at]:X2}, expected 0x{expected[at]:X2}");
            }
        }

        private static void AssertOutsideUnchanged(byte[] destination, byte[] before, bool[] inItem)
        {
            for (int j = 0; j < destination.Length; j++)
            {
                if (!inItem[j] && destination[j] != before[j])
                    Assert.Fail($"byte {j} of the destination, outside every item, was overwritten: 0x{before[j]:X2} became 0x{destination[j]:X2}");
            }
        }

        // ---------------------------------------------------------------- real data

        /// <summary>A corpus frame that Decode decodes alone into exactly its content's length.</summary>
        internal sealed record CorpusFrame(string Name, byte[] Frame, byte[] Content);

        private static readonly Lazy<List<CorpusFrame>> s_valid = new(LoadValidCorpusFrames);

        /// <summary>
        /// Every valid frame file of both corpora (as <see cref="FrameStreams.AllFrameFiles"/> finds them, ../shared
        /// when it is there): those the span decoder decodes into a destination of exactly their content's length.
        /// </summary>
        internal static List<CorpusFrame> ValidCorpusFrames() => s_valid.Value;

        private static List<CorpusFrame> LoadValidCorpusFrames()
        {
            var frames = new List<CorpusFrame>();
            foreach (string file in FrameStreams.AllFrameFiles())
            {
                byte[] frame = File.ReadAllBytes(file);
                FrameOutcome reference = FrameStreams.Reference(frame);
                if (reference.Error != null)
                    continue;
                var content = new byte[reference.Output.Length];
                try
                {
                    if (Lz4FrameDecoder.Decode(frame, content, out int consumed, out int written) != Lz4FrameDecodeStatus.Done || written != content.Length || consumed != frame.Length)
                        continue;
                }
                catch (InvalidDataException)
                {
                    continue; // decodes only into a longer destination (liblz4-agreement/capacity-dependent-last-literals)
                }
                string name = Path.GetFileName(Path.GetDirectoryName(file)) + "/" + Path.GetFileName(file);
                frames.Add(new CorpusFrame(name, frame, content));
            }
            return frames;
        }

        /// <summary>
        /// Every valid corpus frame, plus stored items (real decoded bytes, and an empty one) and items of two whole
        /// frames each.
        /// </summary>
        private static List<Entry> CorpusEntries()
        {
            List<CorpusFrame> frames = ValidCorpusFrames();
            var entries = new List<Entry>();
            for (int i = 0; i < frames.Count; i++)
            {
                entries.Add(Entry.Frame(frames[i].Name, frames[i].Frame, frames[i].Content.Length, frames[i].Content));
                if (i % 4 == 1)
                    entries.Add(Entry.Raw(frames[i].Name + ", stored part", frames[i].Content.AsSpan(0, Math.Min(frames[i].Content.Length, 1000 + 4099 * i)).ToArray()));
            }
            entries.Add(Entry.Raw("empty, stored", Array.Empty<byte>()));
            List<CorpusFrame> small = frames.Where(f => f.Content.Length < 300_000).ToList();
            for (int i = 0; i + 1 < small.Count; i += 5)
                entries.Add(Entry.Frame($"{small[i].Name} + {small[i + 1].Name}", small[i].Frame.Concat(small[i + 1].Frame).ToArray(), small[i].Content.Length + small[i + 1].Content.Length));
            return entries;
        }

        /// <summary>A dozen or so valid frames of 64 KiB to 2 MiB of every kind, and two stored items.</summary>
        private static List<Entry> MediumCorpusEntries()
        {
            var entries = ValidCorpusFrames()
                .Where(f => f.Content.Length is >= 65536 and <= (2 << 20))
                .GroupBy(f => string.Join(",", Kinds(f.Frame)))
                .Select(g => g.First())
                .Select(f => Entry.Frame(f.Name, f.Frame, f.Content.Length, f.Content))
                .ToList();
            entries.Insert(2, Entry.Raw("stored 5000", ValidCorpusFrames().First(f => f.Content.Length >= 5000).Content.AsSpan(0, 5000).ToArray()));
            entries.Add(Entry.Raw("stored 1", new byte[] { 42 }));
            return entries;
        }

        /// <summary>Eight valid frames under 300 KB, and a stored item.</summary>
        private static List<Entry> SmallCorpusEntries()
        {
            var entries = ValidCorpusFrames()
                .Where(f => f.Content.Length < 300_000)
                .GroupBy(f => string.Join(",", Kinds(f.Frame)))
                .Select(g => g.First())
                .Take(8)
                .Select(f => Entry.Frame(f.Name, f.Frame, f.Content.Length, f.Content))
                .ToList();
            entries.Insert(4, Entry.Raw("stored 777", ValidCorpusFrames().First(f => f.Content.Length >= 777).Content.AsSpan(0, 777).ToArray()));
            return entries;
        }

        /// <summary>
        /// <paramref name="count"/> tiny frames of distinct real content (each the item index, then 0 to 200 bytes of a
        /// corpus frame's decoded text or integers), encoded with this package's encoder in varying options.
        /// </summary>
        private static List<Entry> TinyEntries(int count)
        {
            byte[] words = ValidCorpusFrames().First(f => f.Name.EndsWith("cli_words1m_B6I_L9_bx_size.lz4", StringComparison.Ordinal)).Content;
            byte[] integers = ValidCorpusFrames().First(f => f.Name.EndsWith("cli_int64seq2m_B5D_L1_fds.lz4", StringComparison.Ordinal)).Content;
            var entries = new List<Entry>(count);
            var buffer = new byte[1024];
            for (int i = 0; i < count; i++)
            {
                byte[] text = i % 3 == 0 ? integers : words;
                int length = i % 201;
                var content = new byte[4 + length];
                BinaryPrimitives.WriteInt32LittleEndian(content, i);
                text.AsSpan((int)((i * 7919L) % (text.Length - 256)), length).CopyTo(content.AsSpan(4));
                var options = new Lz4FrameEncoderOptions(65536, level: i % 7 == 0 ? 9 : 0, contentChecksum: i % 2 == 0, blockChecksum: i % 3 == 0, contentSize: i % 5 == 0);
                Assert.True(Lz4FrameEncoder.TryEncode(content, buffer, out int written, options));
                entries.Add(Entry.Frame($"tiny {i}", buffer.AsSpan(0, written).ToArray(), content.Length, content));
            }
            return entries;
        }

        internal static HashSet<string> Kinds(byte[] frame)
        {
            var kinds = new HashSet<string>();
            var reader = new Lz4FrameReader(frame);
            int blocks = 0;
            bool linked = false;
            while (reader.Read())
            {
                switch (reader.TokenType)
                {
                    case Lz4FrameTokenType.FrameHeader:
                        linked = reader.Frame.IsLinked;
                        blocks = 0;
                        if (reader.Frame.HasContentChecksum)
                            kinds.Add("content checksum");
                        if (reader.Frame.HasBlockChecksum)
                            kinds.Add("block checksum");
                        if (reader.Frame.HasContentSize)
                            kinds.Add("content size");
                        break;
                    case Lz4FrameTokenType.Block:
                        blocks++;
                        if (blocks == 2)
                            kinds.Add(linked ? "linked" : "independent");
                        if (reader.BlockIsUncompressed)
                            kinds.Add("uncompressed block");
                        break;
                    case Lz4FrameTokenType.SkippableFrame:
                        kinds.Add("skippable frame");
                        break;
                }
            }
            if (reader.FrameCount > 1)
                kinds.Add("multiple frames");
            if (blocks == 0 && reader.FrameCount == 1)
                kinds.Add("empty");
            return kinds;
        }

        // ---------------------------------------------------------------- corrupt frames

        private static List<(string Name, byte[] Frame, int Length)> Mutants()
        {
            var mutants = new List<(string, byte[], int)>();
            foreach (CorpusFrame frame in ValidCorpusFrames().Where(f => f.Content.Length is > 0 and <= (2 << 20)).Where((_, i) => i % 3 == 0))
            {
                foreach ((string how, Func<byte[], byte[]> mutate) in new (string, Func<byte[], byte[]>)[]
                {
                    ("first block flipped", FlipFirstBlock),
                    ("content checksum flipped", FlipContentChecksum),
                    ("header checksum flipped", FlipHeaderChecksum),
                    ("truncated by 1", Truncate(1)),
                    ("truncated to half", f => f.AsSpan(0, f.Length / 2).ToArray()),
                })
                {
                    byte[] mutant = mutate(frame.Frame);
                    var entry = Entry.Frame($"{frame.Name}, {how}", mutant, frame.Content.Length);
                    if (Alone(entry, default).Kind == Outcome.Corrupt)
                        mutants.Add((entry.Name, mutant, frame.Content.Length));
                }
            }
            return mutants;
        }

        private static (string Name, byte[] Frame, int Length) Mutant(string corpusName, Func<byte[], byte[]> mutate)
        {
            CorpusFrame frame = ValidCorpusFrames().First(f => f.Name == corpusName);
            byte[] mutant = mutate(frame.Frame);
            Assert.Equal(Outcome.Corrupt, Alone(Entry.Frame(corpusName, mutant, frame.Content.Length), default).Kind);
            return (corpusName + ", corrupt", mutant, frame.Content.Length);
        }

        /// <summary>A byte in the middle of the first block's data flipped.</summary>
        private static byte[] FlipFirstBlock(byte[] frame)
        {
            byte[] mutant = frame.ToArray();
            var reader = new Lz4FrameReader(frame);
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.Block)
                {
                    int at = reader.TokenStartIndex + 4 + reader.BlockData.Length / 2;
                    mutant[at] ^= 0x5A;
                    return mutant;
                }
            }
            return mutant;
        }

        private static byte[] FlipContentChecksum(byte[] frame)
        {
            byte[] mutant = frame.ToArray();
            mutant[^1] ^= 0x01;
            return mutant;
        }

        private static byte[] FlipHeaderChecksum(byte[] frame)
        {
            byte[] mutant = frame.ToArray();
            var reader = new Lz4FrameReader(frame);
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                {
                    mutant[reader.TokenStartIndex + reader.Frame.HeaderLength - 1] ^= 0x01;
                    return mutant;
                }
            }
            return mutant;
        }

        private static Func<byte[], byte[]> Truncate(int bytes) => frame => frame.AsSpan(0, frame.Length - bytes).ToArray();

        /// <summary>The frame with the FLG dictionary ID flag set and <paramref name="id"/> inserted before the header checksum, recomputed.</summary>
        internal static byte[] WithDictionaryId(byte[] frame, uint id)
        {
            int header = Lz4FrameDescriptor.Read(frame, 0).HeaderLength;
            Assert.Equal(0, frame[4] & 0x01);
            var result = new byte[frame.Length + 4];
            frame.AsSpan(0, header - 1).CopyTo(result);
            result[4] |= 0x01;
            BinaryPrimitives.WriteUInt32LittleEndian(result.AsSpan(header - 1), id);
            result[header + 3] = (byte)(XXH32.DigestOf(result.AsSpan(4, header + 3 - 4)) >> 8);
            frame.AsSpan(header).CopyTo(result.AsSpan(header + 4));
            Assert.Equal(id, Lz4FrameDescriptor.Read(result, 0).DictionaryId);
            return result;
        }
    }

    /// <summary>
    /// <see cref="Lz4FrameDecoder.DecodeBatch"/> allocates a small constant per call, nothing per item. Serial: with
    /// other tests keeping the helper threads busy, a work item goes to the thread pool, whose queue may allocate a
    /// segment on the caller.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class DecodeBatchAllocationTests
    {
        [Fact]
        public void A_parallel_batch_allocates_a_small_constant_not_per_item()
        {
            byte[] words = DecodeBatchTests.ValidCorpusFrames().First(f => f.Name.EndsWith("cli_words1m_B6I_L9_bx_size.lz4", StringComparison.Ordinal)).Content;
            var payloads = new List<byte[]>();
            var frames = new List<byte[]>();
            for (int i = 0; i < 400; i++)
            {
                byte[] payload = words.AsSpan(i * 2311, 1000 + i * 7 % 3000).ToArray();
                payloads.Add(payload);
                var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(payload.Length)];
                Assert.True(Lz4FrameEncoder.TryEncode(payload, frame, out int written));
                frames.Add(frame.AsSpan(0, written).ToArray());
            }
            byte[] source = frames.SelectMany(f => f).ToArray();
            var items = new Lz4FrameBatchItem[400];
            int sourceOffset = 0, destinationOffset = 0;
            for (int i = 0; i < items.Length; i++)
            {
                items[i] = new Lz4FrameBatchItem(sourceOffset, frames[i].Length, destinationOffset, payloads[i].Length);
                sourceOffset += frames[i].Length;
                destinationOffset += payloads[i].Length + 8;
            }
            var destination = new byte[destinationOffset];
            var options = new Lz4FrameDecoderOptions(true, new Lz4Parallelism(2, 1));
            Lz4FrameBatchItem[] few = items.AsSpan(0, 40).ToArray();

            var warmUp = System.Diagnostics.Stopwatch.StartNew();
            while (warmUp.ElapsedMilliseconds < 1000)
            {
                Lz4FrameDecoder.DecodeBatch(source, destination, items, options);
                Lz4FrameDecoder.DecodeBatch(source, destination, few, options);
            }
            System.Threading.Thread.Sleep(100);

            var measured40 = new List<long>();
            var measured400 = new List<long>();
            for (int round = 0; round < 10; round++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                Lz4FrameDecoder.DecodeBatch(source, destination, few, options);
                measured40.Add(GC.GetAllocatedBytesForCurrentThread() - before);
                before = GC.GetAllocatedBytesForCurrentThread();
                Lz4FrameDecoder.DecodeBatch(source, destination, items, options);
                measured400.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            }

            for (int i = 0; i < items.Length; i++)
                Assert.True(payloads[i].AsSpan().SequenceEqual(destination.AsSpan(items[i].DestinationOffset, items[i].DestinationLength)), $"item {i}");
            // The least of ten calls: a thread-pool queue segment allocated once in a while is not what this bounds.
            long of40 = measured40.Min(), of400 = measured400.Min();
            string all = $"40 items: {string.Join(", ", measured40)} B; 400 items: {string.Join(", ", measured400)} B";
            Assert.True(of40 < 2048, all);
            Assert.True(of400 < 2048, all);
            Assert.True(of400 <= of40 + 1024, all);
        }
    }
}
