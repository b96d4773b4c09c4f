using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Compression;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// Every LZ4 frame the Arrow reader hands to its codec while reading some streams, with the destination length it
    /// allocates, so a benchmark can replay exactly the codec calls of a real read without the IPC parsing around them.
    /// </summary>
    public sealed class CodecInputs
    {
        private CodecInputs(List<byte[]> frames, List<int> lengths)
        {
            Frames = frames.ToArray();
            Lengths = lengths.ToArray();
            Destinations = System.Array.ConvertAll(Lengths, n => new byte[n]);
        }

        public byte[][] Frames { get; }

        public int[] Lengths { get; }

        /// <summary>One reusable destination per frame, as Arrow would allocate it.</summary>
        public byte[][] Destinations { get; }

        public long CompressedBytes { get { long n = 0; foreach (byte[] f in Frames) n += f.Length; return n; } }

        public long UncompressedBytes { get { long n = 0; foreach (int l in Lengths) n += l; return n; } }

        public static CodecInputs Capture(IEnumerable<byte[]> streams)
        {
            var frames = new List<byte[]>();
            var lengths = new List<int>();
            var factory = new CapturingFactory(new CompressionCodecFactory(), frames, lengths);
            foreach (byte[] bytes in streams)
            {
                using var reader = new ArrowStreamReader(new MemoryStream(bytes), factory);
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
            }
            return new CodecInputs(frames, lengths);
        }

        /// <summary>A one-line profile: frames, blocks, linked/checksummed/uncompressed counts, block maxima.</summary>
        public string Profile()
        {
            int empty = 0, blocks = 0, linked = 0, multiBlockLinked = 0, blockChecksum = 0, contentChecksum = 0, uncompressed = 0;
            var maxima = new SortedSet<int>();
            foreach (byte[] frame in Frames)
            {
                if (frame.Length == 0)
                {
                    empty++;
                    continue;
                }
                var reader = new Lz4FrameReader(frame);
                int frameBlocks = 0;
                while (reader.Read())
                {
                    if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    {
                        Lz4FrameDescriptor d = reader.Frame;
                        maxima.Add(d.BlockMaximumSize / 1024);
                        if (d.IsLinked) linked++;
                        if (d.HasBlockChecksum) blockChecksum++;
                        if (d.HasContentChecksum) contentChecksum++;
                    }
                    else if (reader.TokenType == Lz4FrameTokenType.Block)
                    {
                        frameBlocks++;
                        if (reader.BlockIsUncompressed) uncompressed++;
                    }
                }
                blocks += frameBlocks;
                if (frameBlocks > 1 && reader.Frame.IsLinked) multiBlockLinked++;
            }
            return $"{Frames.Length - empty} frames (+{empty} empty buffers), {blocks} blocks, block max {string.Join("/", maxima)} KiB, "
                + $"{linked} linked ({multiBlockLinked} multi-block), {blockChecksum} block-checksummed, {contentChecksum} content-checksummed, "
                + $"{uncompressed} uncompressed blocks; {CompressedBytes:N0} -> {UncompressedBytes:N0} bytes";
        }

        private sealed class CapturingFactory : ICompressionCodecFactory
        {
            private readonly ICompressionCodecFactory _inner;
            private readonly List<byte[]> _frames;
            private readonly List<int> _lengths;

            public CapturingFactory(ICompressionCodecFactory inner, List<byte[]> frames, List<int> lengths)
            {
                _inner = inner;
                _frames = frames;
                _lengths = lengths;
            }

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) => CreateCodec(compressionCodecType, null);

            public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) =>
                new CapturingCodec(_inner.CreateCodec(compressionCodecType, compressionLevel), this);

            private sealed class CapturingCodec : ICompressionCodec
            {
                private readonly ICompressionCodec _codec;
                private readonly CapturingFactory _owner;

                public CapturingCodec(ICompressionCodec codec, CapturingFactory owner)
                {
                    _codec = codec;
                    _owner = owner;
                }

                public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
                {
                    _owner._frames.Add(source.ToArray());
                    _owner._lengths.Add(destination.Length);
                    return _codec.Decompress(source, destination);
                }

                public void Compress(ReadOnlyMemory<byte> source, Stream destination) => _codec.Compress(source, destination);

                public void Dispose() => _codec.Dispose();
            }
        }
    }
}
