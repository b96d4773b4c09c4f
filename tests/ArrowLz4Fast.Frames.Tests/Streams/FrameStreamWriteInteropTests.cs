using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using K4os.Compression.LZ4.Streams;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// What <see cref="Lz4FrameStream"/> writes, with and without <see cref="Stream.Flush"/> calls, decodes with the
    /// reference liblz4 (<c>lz4 -d</c>) and with K4os <c>LZ4Stream</c> to the content written.
    /// </summary>
    public class FrameStreamWriteInteropTests
    {
        private const int MiB = 1024 * 1024;

        public static IEnumerable<object[]> Cases()
        {
            foreach (string data in new[] { "ipc/pyarrow/strings.arrows", "ipc/pyarrow/incompressible.arrows", "text", "zeros", "one", "empty" })
            foreach (int blockSize in new[] { 64 * 1024, 256 * 1024, MiB, 4 * MiB })
            foreach (bool checksums in new[] { false, true })
                yield return new object[] { data, blockSize, checksums };
        }

        private static byte[] Content(string data) =>
            data.StartsWith("ipc/", StringComparison.Ordinal) ? File.ReadAllBytes(Corpus.Committed(data)) : FrameStreamWriteTests.Synthetic(data);

        private static Lz4FrameEncoderOptions Options(int blockSize, bool checksums) =>
            new(blockSize, contentChecksum: checksums, blockChecksum: checksums, parallelism: checksums ? new Lz4Parallelism(2, 1) : default);

        [Lz4CliTheory]
        [MemberData(nameof(Cases))]
        public void Liblz4_and_K4os_decode_what_the_stream_writes(string data, int blockSize, bool checksums)
        {
            byte[] content = Content(data);
            var inner = new MemoryStream();
            using (var stream = new Lz4FrameStream(inner, Options(blockSize, checksums), leaveOpen: true))
            {
                for (int offset = 0; offset < content.Length; offset += 81920)
                    stream.Write(content, offset, Math.Min(81920, content.Length - offset));
            }
            byte[] frame = inner.ToArray();
            Assert.Equal(content, ReferenceCli.Decompress(frame));
            Assert.Equal(content, K4osDecode(frame));
        }

        [Lz4CliTheory]
        [MemberData(nameof(Cases))]
        public async Task Flushed_frames_decode_with_liblz4_and_K4os_to_the_content(string data, int blockSize, bool checksums)
        {
            byte[] content = Content(data);
            var random = new Random(content.Length ^ blockSize);
            var inner = new MemoryStream();
            await using (var stream = new Lz4FrameStream(inner, Options(blockSize, checksums), leaveOpen: true))
            {
                // Flush before any content, twice in a row, and at random points of random writes.
                await stream.FlushAsync();
                stream.Flush();
                int offset = 0;
                while (offset < content.Length)
                {
                    int count = Math.Min(random.Next(1, 3 * blockSize), content.Length - offset);
                    await stream.WriteAsync(content.AsMemory(offset, count), CancellationToken.None);
                    offset += count;
                    if (random.Next(3) == 0)
                    {
                        if (random.Next(2) == 0)
                            stream.Flush();
                        else
                            await stream.FlushAsync();
                    }
                }
            }
            byte[] frame = inner.ToArray();
            Assert.Equal(content, ReferenceCli.Decompress(frame));
            Assert.Equal(content, K4osDecode(frame));
        }

        [Lz4CliTheory]
        [InlineData(64 * 1024)]
        [InlineData(4 * MiB)]
        public void Flush_puts_everything_written_so_far_on_the_inner_stream(int blockSize)
        {
            // Without a content checksum, the flushed bytes and an end mark are a whole frame: liblz4 must decode it to
            // everything written before the flush (LZ4F_flush's guarantee).
            byte[] content = FrameStreamWriteTests.Synthetic("text");
            var inner = new CountingStream();
            using var stream = new Lz4FrameStream(inner, new Lz4FrameEncoderOptions(blockSize), leaveOpen: true);
            int offset = 0;
            foreach (int count in new[] { 1, 100, blockSize - 1, blockSize + 2, 3 * blockSize + 5, 70000 })
            {
                int take = Math.Min(count, content.Length - offset);
                stream.Write(content, offset, take);
                offset += take;
                int flushes = inner.Flushes;
                stream.Flush();
                Assert.Equal(flushes + 1, inner.Flushes);
                byte[] frame = inner.ToArray().Concat(new byte[4]).ToArray();
                Assert.Equal(content.AsSpan(0, offset).ToArray(), ReferenceCli.Decompress(frame));
            }
        }

        private static byte[] K4osDecode(byte[] frame)
        {
            using var decoder = LZ4Stream.Decode(new MemoryStream(frame));
            var output = new MemoryStream();
            decoder.CopyTo(output);
            return output.ToArray();
        }

        private sealed class CountingStream : MemoryStream
        {
            public int Flushes { get; private set; }

            public override void Flush()
            {
                Flushes++;
                base.Flush();
            }
        }
    }
}
