#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A body that arrives while it decodes (issue #35): from a seekable input at more than one thread, a body that was
    /// not read ahead (the first batch's) has each buffer's head read by seeking, its metadata served, and is then copied
    /// in chunks while the helpers decode the buffers that are there. Same batches, same errors, same input failures.
    /// </summary>
    public partial class IpcReadAheadTests
    {
        // What the stream reads of each buffer before its body (IpcDecompressingStream.Arriving.cs).
        private const int BufferHead = 32;

        [Theory]
        [InlineData(2, true, true)]
        [InlineData(1, true, false)]
        [InlineData(2, false, false)]
        public void The_first_body_arrives_while_it_decodes(int degree, bool seekable, bool arrives)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            Assert.True(first.Lz4 && first.BodyLength > 4 * BufferHead);
            var input = new Input(bytes, seekable);
            AssertReadsAsOfficial(bytes, input, degree);

            // The reads inside the first body: with the arrival, the buffers' heads (short reads at several places) come
            // before the body is read from its start; without it, the body is read from its start at once.
            var inBody = input.Reads.Where(r => r.At >= first.Body && r.At < first.Body + first.BodyLength).ToList();
            int bodyStart = inBody.FindIndex(r => r.At == first.Body && r.Count > BufferHead);
            Assert.True(bodyStart >= 0, "the first body was never read from its start");
            var heads = inBody.Take(bodyStart).Where(r => r.Count <= BufferHead).Select(r => r.At).Distinct().ToList();
            if (arrives)
            {
                Assert.True(heads.Count >= 2, $"{heads.Count} buffer head(s) read before the first body");
                // Then the body, in order, in more than one piece.
                var rest = inBody.Skip(bodyStart).ToList();
                Assert.True(rest.Count >= 2, "the first body was read in one piece");
                Assert.True(rest.Zip(rest.Skip(1), (a, b) => b.At > a.At).All(x => x), "the first body was not read in order");
            }
            else
            {
                Assert.Empty(heads);
            }
        }

        /// <summary>Seeded defects in the first batch, whose body arrives at two threads: the same outcome as at one thread.</summary>
        [Fact]
        public void A_defect_in_an_arriving_body_fails_as_at_one_thread() => AssertDefectsFailAsAtOneThread(message: 1, seed: 36);

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void An_input_failing_inside_an_arriving_body_fails_at_its_read(int degree)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            var input = new Input(bytes, seekable: true) { FailAt = first.Body + (first.BodyLength * 3 / 4) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, 1)), SlabMemoryAllocator.Shared);

            var error = Assert.Throws<IOException>(() => reader.ReadNextRecordBatch());
            Assert.Equal(Input.Failure, error.Message);
        }

        /// <summary>
        /// An input that ends inside the first body although its length says it holds it (a file cut while it is read):
        /// the same truncation, with the same text, at two threads (where the body arrives) as at one.
        /// </summary>
        [Fact]
        public void An_input_ending_early_inside_an_arriving_body_is_truncated_as_at_one_thread()
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message first = IpcMutator.Messages(bytes)[1];
            int arrived = 0;
            foreach (int percent in new[] { 1, 30, 50, 70, 80, 90, 95, 98 })
            {
                long end = first.Body + (first.BodyLength * percent / 100);
                string one = Outcome(new Input(bytes, seekable: true) { EndAt = end }, degree: 1);
                var input = new Input(bytes, seekable: true) { EndAt = end };
                // The body's pooled array must not hold these bytes already (a read before may have left them there):
                // what has not arrived must never be decoded.
                var poisoned = new[] { ArrayPool<byte>.Shared.Rent((int)first.BodyLength), ArrayPool<byte>.Shared.Rent((int)first.BodyLength) };
                foreach (byte[] array in poisoned)
                {
                    array.AsSpan().Fill(0xA5);
                    ArrayPool<byte>.Shared.Return(array);
                }
                string two = Outcome(input, degree: 2);
                Assert.Contains("InvalidDataException", one, StringComparison.Ordinal);
                Assert.Contains("message body", one, StringComparison.Ordinal);
                Assert.Equal(one, two);
                // Where every buffer's head lies before the cut, the body was deferred and met the cut while arriving.
                arrived += input.Reads.Any(r => r.At > first.Body && r.At < end && r.Count <= BufferHead) ? 1 : 0;
            }
            Assert.True(arrived > 0, "no cut came after every buffer's head");
        }

        /// <summary>
        /// An arriving body read in pieces, some synchronously and some asynchronously (the stream then brings the rest
        /// asynchronously): the same bytes as read whole at one thread.
        /// </summary>
        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        [InlineData(3)]
        public async Task An_arriving_body_read_in_pieces_sync_and_async_gives_the_same_bytes(int seed)
        {
            foreach (string name in new[] { Strings, "ipc/pyarrow/wide.arrows" })
            {
                byte[] bytes = File.ReadAllBytes(Corpus.Committed(name));
                byte[] expected = ReadAll(new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(1, 1)));
                var random = new Random(seed);
                using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(2, 1));
                var got = new MemoryStream();
                var buffer = new byte[1 << 20];
                while (true)
                {
                    int want = 1 + random.Next(1 << random.Next(3, 20));
                    int n = random.Next(2) == 0 ? stream.Read(buffer, 0, want) : await stream.ReadAsync(buffer.AsMemory(0, want));
                    if (n == 0)
                        break;
                    got.Write(buffer, 0, n);
                }
                Assert.True(expected.AsSpan().SequenceEqual(got.ToArray()), $"{name}, seed {seed}: the bytes differ");
            }
        }

        private static byte[] ReadAll(Stream stream)
        {
            using (stream)
            {
                var all = new MemoryStream();
                stream.CopyTo(all);
                return all.ToArray();
            }
        }
    }
}
#endif
