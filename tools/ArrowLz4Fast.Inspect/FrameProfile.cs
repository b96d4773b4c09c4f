using System;
using System.IO;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>What an LZ4 frame (or run of frames) holds, as ArrowLz4Fast's frame reader walks it.</summary>
    internal sealed record FrameProfile(
        int Frames,
        int SkippableFrames,
        bool Linked,
        int BlockMaximum,
        bool BlockChecksum,
        bool ContentChecksum,
        ulong? ContentSize,
        uint? DictionaryId,
        int Blocks,
        int UncompressedBlocks,
        int LargestBlock)
    {
        /// <summary>Walks the frame; a malformed one throws <see cref="System.IO.InvalidDataException"/> with its offset.</summary>
        public static FrameProfile Of(ReadOnlySpan<byte> frame)
        {
            var reader = new Lz4FrameReader(frame);
            int frames = 0, skippable = 0, blocks = 0, uncompressed = 0, largest = 0;
            Lz4FrameDescriptor first = default;
            while (reader.Read())
            {
                switch (reader.TokenType)
                {
                    case Lz4FrameTokenType.FrameHeader:
                        if (frames++ == 0)
                            first = reader.Frame;
                        break;
                    case Lz4FrameTokenType.SkippableFrame:
                        skippable++;
                        break;
                    case Lz4FrameTokenType.Block:
                        blocks++;
                        largest = Math.Max(largest, reader.BlockData.Length);
                        if (reader.BlockIsUncompressed)
                            uncompressed++;
                        break;
                }
            }
            return new FrameProfile(frames, skippable, first.IsLinked, first.BlockMaximumSize, first.HasBlockChecksum,
                first.HasContentChecksum, first.ContentSize, first.DictionaryId, blocks, uncompressed, largest);
        }

        public override string ToString()
        {
            string text = $"{BlockMaximum / 1024} KiB {(Linked ? "linked" : "independent")}, {Blocks} block{(Blocks == 1 ? "" : "s")}";
            if (UncompressedBlocks > 0) text += $" ({UncompressedBlocks} uncompressed)";
            if (BlockChecksum) text += ", block checksums";
            if (ContentChecksum) text += ", content checksum";
            if (ContentSize is ulong size) text += $", content size {size}";
            if (DictionaryId is uint id) text += $", dictionary 0x{id:X8}";
            if (Frames > 1) text += $", {Frames} frames";
            if (SkippableFrames > 0) text += $", {SkippableFrames} skippable";
            return text;
        }
    }
}
