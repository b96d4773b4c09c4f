using System;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>A payload of 3 MB and its frame, for calls that go parallel and their sequential result.</summary>
    internal sealed class ParallelWork
    {
        public ParallelWork(int blockSize, int seed)
        {
            Payload = TestData.Mixed(3_000_000 + seed * 1000, seed);
            Options = new Lz4FrameEncoderOptions(blockSize, 0, true, false);
            var frame = new byte[Lz4FrameEncoder.GetMaxEncodedLength(Payload.Length, Options)];
            Assert.True(Lz4FrameEncoder.TryEncode(Payload, frame, out int length, Options));
            Frame = frame.AsSpan(0, length).ToArray();
        }

        public byte[] Payload { get; }

        public byte[] Frame { get; }

        public Lz4FrameEncoderOptions Options { get; }

        /// <summary>One parallel decode and one parallel encode, both checked against the sequential result.</summary>
        public void RunOnce(int degree)
        {
            var parallelism = new Lz4Parallelism(degree, 1);
            var output = new byte[Payload.Length];
            Assert.True(Lz4FrameDecoder.TryDecode(Frame, output, out int written, new Lz4FrameDecoderOptions(verifyChecksums: true, parallelism)));
            Assert.Equal(Payload.Length, written);
            Assert.True(Payload.AsSpan().SequenceEqual(output));

            var encoded = new byte[Payload.Length];
            var options = new Lz4FrameEncoderOptions(Options.BlockSize, 0, true, false, parallelism: parallelism);
            Assert.True(Lz4FrameEncoder.TryEncode(Payload, encoded, out int encodedLength, options));
            Assert.True(Frame.AsSpan().SequenceEqual(encoded.AsSpan(0, encodedLength)));
        }
    }
}
