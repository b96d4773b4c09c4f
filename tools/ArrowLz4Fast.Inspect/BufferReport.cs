using System;
using System.Buffers.Binary;
using System.IO;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>How a body buffer is stored and which path ArrowLz4Fast takes for it.</summary>
    internal enum BufferPath
    {
        /// <summary>Zero-length region: Arrow never calls the codec.</summary>
        Absent,

        /// <summary>Uncompressed length 0 (a bare prefix): the codec sees an empty source.</summary>
        Empty,

        /// <summary>Uncompressed length -1: stored raw after the prefix.</summary>
        Raw,

        /// <summary>An LZ4 frame the direct decoder handles.</summary>
        Direct,

        /// <summary>An LZ4 frame with a dictionary ID: declined (NotSupportedException): no decoder here or in K4os can decode it.</summary>
        DeclinedDictionary,

        /// <summary>A ZSTD frame: served by the inner factory.</summary>
        Zstd,

        /// <summary>The body is not compressed at all.</summary>
        Uncompressed,

        /// <summary>The LZ4 frame is malformed.</summary>
        Corrupt,
    }

    /// <summary>One body buffer as the tool reports it.</summary>
    internal sealed record BufferReport(
        BodyBuffer Buffer,
        long AbsoluteOffset,
        long UncompressedLength,
        BufferPath Path,
        FrameProfile? Frame,
        string? Problem)
    {
        public string? Verification { get; set; }

        /// <summary>What --verify found, or null when it did not decode this buffer.</summary>
        public VerifyOutcome? Outcome { get; set; }

        public bool VerificationFailed => Outcome is not (null or VerifyOutcome.Identical or VerifyOutcome.Declined);

        public static BufferReport Of(IpcMessage message, BodyBuffer buffer, ReadOnlySpan<byte> file)
        {
            long at = message.BodyOffset + buffer.Offset;
            if (message.Codec == BodyCodec.None)
                return new BufferReport(buffer, at, buffer.Length, BufferPath.Uncompressed, null, null);
            if (buffer.Length == 0)
                return new BufferReport(buffer, at, 0, BufferPath.Absent, null, null);
            if (buffer.Length < 8)
                return new BufferReport(buffer, at, 0, BufferPath.Corrupt, null, $"{buffer.Length}-byte buffer is shorter than its 8-byte length prefix");

            ReadOnlySpan<byte> region = file.Slice((int)at, (int)buffer.Length);
            long length = BinaryPrimitives.ReadInt64LittleEndian(region);
            if (length == -1)
                return new BufferReport(buffer, at, buffer.Length - 8, BufferPath.Raw, null, null);
            if (length == 0 && region.Length == 8)
                return new BufferReport(buffer, at, 0, BufferPath.Empty, null, null);
            if (length < 0 || length > int.MaxValue)
                return new BufferReport(buffer, at, length, BufferPath.Corrupt, null, $"uncompressed length {length} is not a valid buffer length");
            if (message.Codec == BodyCodec.Zstd)
                return new BufferReport(buffer, at, length, BufferPath.Zstd, null, null);
            if (message.Codec != BodyCodec.Lz4Frame)
                return new BufferReport(buffer, at, length, BufferPath.Corrupt, null, $"unknown body codec {(int)message.Codec}");

            try
            {
                FrameProfile frame = FrameProfile.Of(region.Slice(8));
                return new BufferReport(buffer, at, length, frame.DictionaryId is null ? BufferPath.Direct : BufferPath.DeclinedDictionary, frame, null);
            }
            catch (InvalidDataException e)
            {
                return new BufferReport(buffer, at, length, BufferPath.Corrupt, null, e.Message);
            }
        }

        public static string Describe(BufferPath path) => path switch
        {
            BufferPath.Absent => "absent (length 0)",
            BufferPath.Empty => "empty",
            BufferPath.Raw => "raw (stored uncompressed)",
            BufferPath.Direct => "direct",
            BufferPath.DeclinedDictionary => "declined (dictionary id)",
            BufferPath.Zstd => "zstd (inner factory)",
            BufferPath.Uncompressed => "uncompressed body",
            _ => "CORRUPT",
        };

        public static string JsonName(BufferPath path) => path switch
        {
            BufferPath.DeclinedDictionary => "declined_dictionary_id",
            _ => path.ToString().ToLowerInvariant(),
        };
    }
}
