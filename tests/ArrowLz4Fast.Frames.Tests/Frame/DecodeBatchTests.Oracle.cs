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
    /// <summary>The batch oracle: what Decode does with each entry alone, packed batches, corpus entries and mutants.</summary>
    public partial class DecodeBatchTests
    {
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
}
