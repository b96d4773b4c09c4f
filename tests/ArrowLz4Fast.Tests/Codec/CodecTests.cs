using System;
using System.IO;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4;
using K4os.Compression.LZ4.Streams;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The Arrow glue: length contract, fallback, factory delegation and errors.</summary>
    public class CodecTests
    {
        private static byte[] Frame(byte[] payload, bool chain = true) =>
            TestData.K4osFrame(payload, new LZ4EncoderSettings { ChainBlocks = chain }, contentSize: false);

        [Fact]
        public void An_empty_buffer_with_no_frame_decodes_to_nothing()
        {
            using var codec = new Lz4FastCodec();
            Assert.Equal(0, codec.Decompress(ReadOnlyMemory<byte>.Empty, Memory<byte>.Empty));
        }

        [Fact]
        public void An_empty_buffer_in_a_longer_destination_decodes_to_nothing_and_Arrow_judges_the_length()
        {
            using var codec = new Lz4FastCodec();
            Assert.Equal(0, codec.Decompress(ReadOnlyMemory<byte>.Empty, new byte[10]));
        }

        [Fact]
        public void An_empty_buffer_where_a_slab_buffer_declares_bytes_is_invalid()
        {
            var allocator = new SlabMemoryAllocator();
            using var owner = allocator.Allocate(10);
            using var codec = new Lz4FastCodec();
            var e = FrameErrors.Throws(() => codec.Decompress(ReadOnlyMemory<byte>.Empty, owner.Memory));
            Assert.Contains("10 decoded bytes are expected", e.Message);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_destination_longer_than_the_frame_gets_the_frame_at_its_start_and_its_length_back(bool useK4os)
        {
            byte[] payload = TestData.Mixed(100_000, 7);
            byte[] frame = Frame(payload);
            foreach (int spare in new[] { 1, 7, 4096 })
            {
                var destination = new GuardedBuffer(payload.Length + spare);
                using var codec = new Lz4FastCodec(new Lz4FastOptions { UseK4osDecoder = useK4os });

                int written = codec.Decompress(frame, destination.Memory);

                Assert.Equal(payload.Length, written);
                Assert.True(destination.Span.Slice(0, written).SequenceEqual(payload));
                destination.AssertGuardsIntact();
            }
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void A_frame_shorter_than_a_slab_buffer_is_invalid_and_names_the_declared_length(bool useK4os)
        {
            byte[] payload = TestData.Mixed(100_000, 7);
            byte[] frame = Frame(payload);
            var allocator = new SlabMemoryAllocator();
            // An earlier buffer's bytes in the memory the failed decode gets next: they must not show afterwards.
            using (var earlier = allocator.Allocate(payload.Length + 1))
                earlier.Memory.Span.Fill(0xEE);
            using var owner = allocator.Allocate(payload.Length + 1);
            using var codec = new Lz4FastCodec(new Lz4FastOptions { UseK4osDecoder = useK4os });

            var e = FrameErrors.Throws(() => codec.Decompress(frame, owner.Memory));

            Assert.Contains($"ends after {payload.Length} decoded bytes but the Arrow buffer declares {payload.Length + 1}", e.Message);
            Assert.Equal(frame.Length, e.Offset);
            Assert.True(owner.Memory.Span.IndexOf(new byte[] { 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE }) < 0);
        }

        [Fact]
        public void A_frame_longer_than_the_declared_length_is_invalid_not_truncated()
        {
            byte[] payload = TestData.Mixed(200_000, 8);
            byte[] frame = Frame(payload);
            var destination = new GuardedBuffer(150_000);
            using var codec = new Lz4FastCodec();

            var e = FrameErrors.Throws(() => codec.Decompress(frame, destination.Memory));

            Assert.Contains("decodes to more than the 150000-byte destination holds", e.Message);
            long offset = e.Offset;
            Assert.InRange(offset, 7, frame.Length - 4);
            destination.AssertGuardsIntact();
        }

        [Fact]
        public void A_frame_declaring_a_dictionary_is_not_supported_and_names_the_dictionary()
        {
            byte[] frame = File.ReadAllBytes(Corpus.Committed("malformed/dict_id_present.lz4"));
            using var codec = new Lz4FastCodec();

            var e = Assert.Throws<NotSupportedException>(() => codec.Decompress(frame, new byte[1 << 20]));

            Assert.Contains("dictionary ID 0x12345678", e.Message);
            Assert.Contains("byte offset 0", e.Message);
        }

        [Fact]
        public void Corrupt_data_in_a_linked_frame_names_the_block_and_its_offset()
        {
            byte[] payload = TestData.Mixed(300_000, 9);
            byte[] frame = Frame(payload);
            var reader = new Lz4FrameReader(frame);
            int thirdBlock = -1;
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.Block && reader.BlockIndex == 2 && !reader.BlockIsUncompressed)
                    thirdBlock = reader.TokenStartIndex;
            }
            Assert.True(thirdBlock > 0);
            // 0xFF bytes at the start of the block announce a literal run longer than the block itself.
            frame.AsSpan(thirdBlock + 4, 16).Fill(0xFF);
            using var codec = new Lz4FastCodec();

            var e = FrameErrors.Throws(() => codec.Decompress(frame, new byte[payload.Length]));

            Assert.Contains($"byte offset {thirdBlock}", e.Message);
            Assert.Contains("block 2", e.Message);
        }

        [Fact]
        public void The_factory_serves_LZ4_itself_and_delegates_ZSTD_to_the_inner_factory()
        {
            var factory = new Lz4FastCodecFactory(new OfficialFactory());
            using ICompressionCodec lz4 = factory.CreateCodec(CompressionCodecType.Lz4Frame);
            using ICompressionCodec zstd = factory.CreateCodec(CompressionCodecType.Zstd);
            Assert.IsType<Lz4FastCodec>(lz4);
            Assert.Equal("ZstdCompressionCodec", zstd.GetType().Name);

            var batches = ArrowData.ReadAll(Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows"), factory);
            Assert.NotEmpty(batches);
        }

        [Fact]
        public void Without_an_inner_factory_ZSTD_is_a_clear_NotSupportedException()
        {
            var e = Assert.Throws<NotSupportedException>(() => new Lz4FastCodecFactory().CreateCodec(CompressionCodecType.Zstd));
            Assert.Contains("Zstd", e.Message);
            Assert.Contains("inner factory", e.Message);

            var read = Assert.Throws<NotSupportedException>(() => ArrowData.ReadAll(Corpus.Committed("ipc/pyarrow/numeric_zstd.arrows"), new Lz4FastCodecFactory()));
            Assert.Contains("Zstd", read.Message);
        }

        [Theory]
        [InlineData(-1)]
        [InlineData(13)]
        [InlineData(100)]
        public void An_unsupported_compression_level_names_the_valid_range(int level)
        {
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4FastCodecFactory().CreateCodec(CompressionCodecType.Lz4Frame, level));
            Assert.Contains("0 to 12", e.Message);
            Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4FastOptions { CompressionLevel = level });
        }

        [Theory]
        [InlineData(0)]
        [InlineData(100_000)]
        [InlineData(2 << 20)]
        public void An_unsupported_block_size_names_the_valid_values(int blockSize)
        {
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4FastOptions { BlockSize = blockSize });
            Assert.Contains("65536, 262144, 1048576 or 4194304", e.Message);
        }

        [Fact]
        public void Options_are_copied_when_the_factory_is_made()
        {
            var options = new Lz4FastOptions { BlockSize = 64 * 1024, CompressionLevel = 9 };
            var factory = new Lz4FastCodecFactory(options);
            options.BlockSize = 4 << 20;
            options.CompressionLevel = 0;

            var codec = (Lz4FastCodec)factory.CreateCodec(CompressionCodecType.Lz4Frame);

            Assert.Equal(64 * 1024, codec.EncoderOptions.BlockSize);
            Assert.Equal(9, codec.EncoderOptions.Level);
            Assert.Equal(3, ((Lz4FastCodec)factory.CreateCodec(CompressionCodecType.Lz4Frame, 3)).EncoderOptions.Level);
        }

        [Fact]
        public void Skipping_checksums_accepts_a_frame_whose_content_checksum_is_wrong_and_verifying_rejects_it()
        {
            byte[] payload = TestData.Mixed(100_000, 10);
            byte[] frame = TestData.K4osFrame(payload, new LZ4EncoderSettings { ContentChecksum = true }, contentSize: false);
            frame[^1] ^= 0x01;

            var e = FrameErrors.Throws(() => new Lz4FastCodec().Decompress(frame, new byte[payload.Length]));
            Assert.Contains("content checksum", e.Message);
            Assert.Contains($"byte offset {frame.Length - 4}", e.Message);

            var lenient = new Lz4FastCodec(new Lz4FastOptions { VerifyChecksums = false });
            var output = new byte[payload.Length];
            Assert.Equal(payload.Length, lenient.Decompress(frame, output));
            Assert.Equal(payload, output);
        }

        [Fact]
        public void Concatenated_frames_and_skippable_frames_decode_in_order()
        {
            byte[] a = TestData.Mixed(70_000, 11), b = TestData.Mixed(5_000, 12);
            byte[] skippable = { 0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3 };
            byte[] input = [.. skippable, .. Frame(a), .. skippable, .. Frame(b, chain: false), .. skippable];
            var output = new byte[a.Length + b.Length];

            Assert.Equal(output.Length, new Lz4FastCodec().Decompress(input, output));

            Assert.Equal([.. a, .. b], output);
        }

        [Fact]
        public void Compress_to_a_stream_writes_one_frame_the_official_reader_decodes()
        {
            byte[] payload = TestData.Mixed(3_000_000, 13);
            using var codec = new Lz4FastCodec();
            using var stream = new MemoryStream();

            codec.Compress(payload, stream);

            var output = new byte[payload.Length];
            using (var decoder = LZ4Frame.Decode(stream.ToArray().AsMemory()))
                Assert.Equal(payload.Length, decoder.ReadManyBytes(output));
            Assert.Equal(payload, output);
        }
    }
}
