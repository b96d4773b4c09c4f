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
    public partial class DecodeBatchTests
    {
        internal const byte Sentinel = 0xCD;

        // Sequential, and parallel with 7 work items: a degree only sets how many work items the one job posts, so 2 (one
        // work item) takes no path 8 does not; the tests of parts and of the schedule name 2 besides where it matters. The
        // netstandard2.0 suite runs the parallel one alone: the sequential decode has no code of that build's own.
        public static IEnumerable<object[]> Degrees() =>
#if NETSTANDARD_SUITE
            new[] { 8 }.Select(d => new object[] { d });
#else
            new[] { 1, 8 }.Select(d => new object[] { d });
#endif

        // Each file once, at 1, 2 and 8 threads in turn: what a file decodes or fails to is DecodeBatchItem's on every
        // degree; the schedule and the error choice across threads are the Degrees theories'.
        public static IEnumerable<object[]> CorpusFilesAndDegrees() =>
            FrameStreams.SuiteFrameFiles().Select((f, i) => new object[] { f, new[] { 1, 2, 8 }[i % 3] });

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
            var buffers = CorpusBuffers.OfPath(Corpus.Shared(file));
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
    }
}
