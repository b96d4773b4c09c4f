using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The codec's compress side: a frame that would not be smaller is refused, and every level's frames read back with K4os. The frame writer's own tests are in ArrowLz4Fast.Frames.Tests (WriterTests).</summary>
    public class CodecWriterTests
    {
        [Fact]
        public void A_frame_that_would_not_be_smaller_is_refused_so_Arrow_stores_the_buffer_raw()
        {
            byte[] noise = RandomBytes(300_000);
            var destination = new GuardedBuffer(noise.Length);
            using var codec = new Lz4FastCodec();

            Assert.False(codec.TryCompress(noise, destination.Memory, out int written));

            Assert.Equal(0, written);
            destination.AssertGuardsIntact();
        }

        [Theory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(3)]
        [InlineData(9)]
        [InlineData(12)]
        public void Every_compression_level_writes_frames_the_official_reader_decodes(int level)
        {
            byte[] payload = TestData.Mixed(400_000, level);
            using var codec = new Lz4FastCodec(compressionLevel: level);
            var frame = new byte[payload.Length];
            Assert.True(codec.TryCompress(payload, frame, out int written));

            var output = new byte[payload.Length];
            using (var decoder = LZ4Frame.Decode(frame.AsMemory(0, written)))
                Assert.Equal(payload.Length, decoder.ReadManyBytes(output));
            Assert.Equal(payload, output);
        }


        private static byte[] RandomBytes(int length)
        {
            var data = new byte[length];
            new Random(length).NextBytes(data);
            return data;
        }
    }
}
