using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using K4os.Hash.xxHash;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// Builds mutant i of a run from the seed corpus and (seed, i) alone, so any mutant can be regenerated. Stacks one
    /// to four mutations: byte-level ones, frame-structure ones (block sizes, flags with the header checksum
    /// recomputed, content size), LZ4-sequence edits inside blocks (offsets 0, 1–16 and at the window edge, length
    /// extensions, last-literal rules) with block checksums recomputed, and splices, concatenations and skippable
    /// frames.
    /// </summary>
    internal sealed class Mutator
    {
        private static readonly byte[] Interesting = { 0x00, 0x01, 0x0F, 0x10, 0x40, 0x7F, 0x80, 0xF0, 0xFE, 0xFF };

        private readonly IReadOnlyList<byte[]> _seeds;

        public Mutator(IReadOnlyList<byte[]> seeds) => _seeds = seeds;

        public static Random RandomFor(ulong seed, long index)
        {
            // SplitMix64 of (seed, index): a mutant depends on nothing else.
            ulong z = seed + (0x9E3779B97F4A7C15UL * (ulong)(index + 1));
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            z ^= z >> 31;
            return new Random((int)(z ^ (z >> 32)));
        }

        public (byte[] Data, string Recipe) Create(ulong seed, long index)
        {
            Random rng = RandomFor(seed, index);
            int seedIndex = rng.Next(_seeds.Count);
            byte[] data = (byte[])_seeds[seedIndex].Clone();
            var recipe = new List<string> { $"seed#{seedIndex}" };
            // Mostly one or two edits, so that a good share of mutants stay valid for liblz4 and their bytes get compared.
            int count = rng.Next(4) switch { 0 or 1 => 1, 2 => 2, _ => 3 + rng.Next(2) };
            for (int i = 0; i < count; i++)
            {
                (data, string op) = MutateOnce(data, rng);
                recipe.Add(op);
            }
            return (data, string.Join(" ", recipe));
        }

        private (byte[], string) MutateOnce(byte[] data, Random rng)
        {
            int pick = rng.Next(100);
            FrameLayout? layout = FrameLayout.Parse(data);
            if (layout is not null)
            {
                if (pick < 30)
                    return SequenceEdit(data, layout, rng);
                if (pick < 38)
                    return BlockSizeEdit(data, layout, rng);
                if (pick < 46)
                    return FlagEdit(data, layout, rng);
                if (pick < 50)
                    return ContentSizeEdit(data, layout, rng);
            }
            if (data.Length == 0 || pick < 58)
                return Structural(data, rng);
            return ByteLevel(data, rng);
        }

        private static (byte[], string) ByteLevel(byte[] data, Random rng)
        {
            int at = rng.Next(data.Length);
            switch (rng.Next(5))
            {
                case 0:
                    data[at] ^= (byte)(1 << rng.Next(8));
                    return (data, $"flip@{at}");
                case 1:
                    data[at] = rng.Next(2) == 0 ? Interesting[rng.Next(Interesting.Length)] : (byte)rng.Next(256);
                    return (data, $"set@{at}");
                case 2:
                    return (data.AsSpan(0, at).ToArray(), $"truncate@{at}");
                case 3:
                {
                    byte[] inserted = new byte[1 + rng.Next(8)];
                    rng.NextBytes(inserted);
                    return (Splice(data, at, 0, inserted), $"insert{inserted.Length}@{at}");
                }
                default:
                {
                    int length = Math.Min(1 + rng.Next(16), data.Length - at);
                    return (Splice(data, at, length, Array.Empty<byte>()), $"delete{length}@{at}");
                }
            }
        }

        private (byte[], string) Structural(byte[] data, Random rng)
        {
            byte[] other = _seeds[rng.Next(_seeds.Count)];
            switch (rng.Next(3))
            {
                case 0:
                {
                    int head = data.Length == 0 ? 0 : rng.Next(data.Length + 1);
                    int tail = other.Length == 0 ? 0 : rng.Next(other.Length + 1);
                    return (data.Take(head).Concat(other.Skip(tail)).ToArray(), $"splice{head}+{tail}");
                }
                case 1:
                    return (rng.Next(2) == 0 ? data.Concat(other).ToArray() : other.Concat(data).ToArray(), "concat");
                default:
                {
                    byte[] user = new byte[rng.Next(3) == 0 ? 0 : rng.Next(64)];
                    rng.NextBytes(user);
                    byte[] skippable = new byte[8 + user.Length];
                    BinaryPrimitives.WriteUInt32LittleEndian(skippable, 0x184D2A50u + (uint)rng.Next(16));
                    BinaryPrimitives.WriteUInt32LittleEndian(skippable.AsSpan(4), rng.Next(8) == 0 ? (uint)(user.Length + rng.Next(-2, 3)) : (uint)user.Length);
                    user.CopyTo(skippable, 8);
                    int at = rng.Next(3) switch { 0 => 0, 1 => data.Length, _ => data.Length == 0 ? 0 : rng.Next(data.Length) };
                    return (Splice(data, at, 0, skippable), $"skippable@{at}");
                }
            }
        }

        private static (byte[], string) FlagEdit(byte[] data, FrameLayout layout, Random rng)
        {
            int at = rng.Next(2) == 0 ? 4 : 5;
            data[at] ^= (byte)(1 << rng.Next(8));
            // Adding or removing the content-size or dictionary-ID field moves the header checksum.
            FrameLayout? moved = FrameLayout.Parse(data);
            if (moved is not null && rng.Next(4) != 0)
                FrameLayout.FixHeaderChecksum(data, moved.HeaderChecksumAt);
            return (data, $"flag@{at}");
        }

        private static (byte[], string) ContentSizeEdit(byte[] data, FrameLayout layout, Random rng)
        {
            if (!layout.ContentSizePresent)
            {
                // Declare a content size: set the flag, insert the field, fix the header checksum.
                data[4] |= 0x08;
                byte[] field = new byte[8];
                BinaryPrimitives.WriteUInt64LittleEndian(field, (ulong)rng.Next(0, 1 << 20));
                data = Splice(data, 6, 0, field);
                FrameLayout.FixHeaderChecksum(data, layout.HeaderChecksumAt + 8);
                return (data, "content-size-add");
            }
            ulong size = BinaryPrimitives.ReadUInt64LittleEndian(data.AsSpan(6));
            ulong edited = rng.Next(5) switch
            {
                0 => 0,
                1 => size + 1,
                2 => size - 1,
                3 => ulong.MaxValue - (ulong)rng.Next(4),
                _ => (ulong)rng.Next(),
            };
            BinaryPrimitives.WriteUInt64LittleEndian(data.AsSpan(6), edited);
            if (rng.Next(4) != 0)
                FrameLayout.FixHeaderChecksum(data, layout.HeaderChecksumAt);
            return (data, "content-size");
        }

        private static (byte[], string) BlockSizeEdit(byte[] data, FrameLayout layout, Random rng)
        {
            if (layout.Blocks.Count == 0)
                return (data, "block-size(none)");
            BlockSpan block = layout.Blocks[rng.Next(layout.Blocks.Count)];
            uint field = BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan(block.SizeFieldAt));
            uint edited = rng.Next(7) switch
            {
                0 => field ^ 0x80000000u,
                1 => field + 1,
                2 => field - 1,
                3 => (uint)layout.BlockMaximum + (uint)rng.Next(2),
                4 => 0x80000000u | (uint)rng.Next(1, 64),
                5 => 0xFFFFFFFFu,
                _ => (uint)rng.Next(1, 1 << 16),
            };
            BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan(block.SizeFieldAt), edited);
            return (data, $"block-size@{block.SizeFieldAt}");
        }

        private static (byte[], string) SequenceEdit(byte[] data, FrameLayout layout, Random rng)
        {
            var compressed = layout.Blocks.Where(b => !b.Uncompressed && b.Size > 0).ToList();
            if (compressed.Count == 0)
                return (data, "seq(none)");
            BlockSpan block = compressed[rng.Next(compressed.Count)];
            byte[] body = data.AsSpan(block.DataAt, block.Size).ToArray();
            List<Sequence> sequences = Sequence.Parse(body);
            if (sequences.Count == 0)
                return (data, "seq(unparsed)");
            var matches = sequences.Where(s => s.HasMatch).ToList();
            string op;
            int kind = rng.Next(6);
            if (matches.Count == 0 || kind == 5)
            {
                op = LastLiterals(ref body, sequences, rng);
            }
            else
            {
                Sequence s = matches[rng.Next(matches.Count)];
                int window = s.OutputBefore + (layout.Linked ? Math.Min(block.OutputEstimate, 65536) : 0);
                switch (kind)
                {
                    case 0:
                        BinaryPrimitives.WriteUInt16LittleEndian(body.AsSpan(s.OffsetAt), 0);
                        op = "offset0";
                        break;
                    case 1:
                        BinaryPrimitives.WriteUInt16LittleEndian(body.AsSpan(s.OffsetAt), (ushort)rng.Next(1, 17));
                        op = "offset-small";
                        break;
                    case 2:
                        BinaryPrimitives.WriteUInt16LittleEndian(body.AsSpan(s.OffsetAt), (ushort)Math.Clamp(window + rng.Next(-1, 2), 0, 65535));
                        op = "offset-edge";
                        break;
                    case 3:
                        op = MatchExtension(ref body, s, rng);
                        break;
                    default:
                    {
                        // Literal length: an extension byte or the token's literal nibble.
                        body[s.TokenAt] = (byte)((body[s.TokenAt] & 0x0F) | (rng.Next(16) << 4));
                        op = "literal-nibble";
                        break;
                    }
                }
            }
            return (Rebuild(data, layout, block, body, rng), $"seq:{op}@{block.SizeFieldAt}");
        }

        private static string MatchExtension(ref byte[] body, Sequence s, Random rng)
        {
            if (s.MatchExtensionAt >= 0 && rng.Next(3) != 0)
            {
                int at = s.MatchExtensionAt + rng.Next(s.MatchExtensionLength);
                switch (rng.Next(3))
                {
                    case 0:
                        body[at] = 0xFF;
                        return "ext-255";
                    case 1:
                        body = Splice(body, at, 1, Array.Empty<byte>());
                        return "ext-drop";
                    default:
                        body = Splice(body, at, 0, new byte[] { 0xFF });
                        return "ext-insert";
                }
            }
            // Give the match a length extension it did not have.
            body[s.TokenAt] |= 0x0F;
            int insertAt = s.OffsetAt + 2;
            body = Splice(body, insertAt, 0, new[] { (byte)(rng.Next(2) == 0 ? rng.Next(4) : rng.Next(256)) });
            return "ext-new";
        }

        /// <summary>Break the end-of-block rules: fewer than 5 last literals, or a block that ends with a match.</summary>
        private static string LastLiterals(ref byte[] body, List<Sequence> sequences, Random rng)
        {
            Sequence last = sequences[^1];
            if (last.HasMatch)
                return "last(match)";
            if (rng.Next(2) == 0 && sequences.Count > 1)
            {
                // Drop the final literals-only sequence: the block now ends with a match.
                body = body.AsSpan(0, last.TokenAt).ToArray();
                return "end-with-match";
            }
            int literals = last.LiteralLength;
            int keep = rng.Next(0, Math.Min(literals, 5));
            if (literals >= 15 || keep >= literals)
                return "last(long)";
            body = body.AsSpan(0, last.LiteralsAt + keep).ToArray();
            body[last.TokenAt] = (byte)((body[last.TokenAt] & 0x0F) | (keep << 4));
            return $"last-literals{keep}";
        }

        /// <summary>Puts an edited block body back: its size field, and its checksum when the frame has them.</summary>
        private static byte[] Rebuild(byte[] data, FrameLayout layout, BlockSpan block, byte[] body, Random rng)
        {
            int checksum = layout.BlockChecksum ? 4 : 0;
            int oldLength = 4 + block.Size + checksum;
            if (block.DataAt + block.Size + checksum > data.Length)
                checksum = 0;
            byte[] replacement = new byte[4 + body.Length + checksum];
            BinaryPrimitives.WriteUInt32LittleEndian(replacement, (uint)body.Length);
            body.CopyTo(replacement, 4);
            if (checksum != 0)
            {
                uint digest = rng.Next(16) == 0 ? 0xDEADBEEF : XXH32.DigestOf(body);
                BinaryPrimitives.WriteUInt32LittleEndian(replacement.AsSpan(4 + body.Length), digest);
            }
            return Splice(data, block.SizeFieldAt, Math.Min(oldLength, data.Length - block.SizeFieldAt), replacement);
        }

        private static byte[] Splice(byte[] data, int at, int remove, byte[] insert)
        {
            byte[] result = new byte[data.Length - remove + insert.Length];
            data.AsSpan(0, at).CopyTo(result);
            insert.CopyTo(result, at);
            data.AsSpan(at + remove).CopyTo(result.AsSpan(at + insert.Length));
            return result;
        }
    }
}
