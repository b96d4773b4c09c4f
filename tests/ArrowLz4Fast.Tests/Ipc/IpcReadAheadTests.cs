#if !WITHOUT_OFFICIAL_CODEC
using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using OfficialFactory = Apache.Arrow.Compression.CompressionCodecFactory;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The read-ahead (issue #35): from a seekable input, at more than one thread, the wrapper reads the next message
    /// while the helpers decode the current body, so that the copy out of the input overlaps the decode. What it reads
    /// ahead is not interpreted early: a defect or an input failure in the next message surfaces where it would without
    /// the read-ahead.
    /// </summary>
    public partial class IpcReadAheadTests
    {
        private const string Strings = "ipc/pyarrow/strings.arrows";

        [Theory]
        [InlineData(2, true, true)]
        [InlineData(1, true, false)]
        [InlineData(2, false, false)]
        public void The_next_message_is_read_while_this_one_decodes(int degree, bool seekable, bool readsAhead)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            List<IpcMutator.Message> messages = IpcMutator.Messages(bytes);
            Assert.True(messages.Count >= 3 && messages[1].Lz4 && messages[2].Lz4, "a schema and two LZ4 batches");
            long firstEnd = messages[1].Body + messages[1].BodyLength;
            long secondEnd = messages[2].Body + messages[2].BodyLength;

            var input = new Input(bytes, seekable);
            // Read to the end of the first batch's body, or ahead to the end of the second's.
            AssertReadsAsOfficial(bytes, input, degree, afterFirst: () => Assert.Equal(readsAhead ? secondEnd : firstEnd, input.Consumed));
        }

        /// <summary>
        /// A file's length is a system call: asked for every message, 1,000 tiny batches from a file read slower than
        /// the codec path (docs/parallel-read.md). The input's length is asked only for bodies long enough for the helpers (with the default
        /// minimum), so a stream of small messages asks a constant number of times, not once a message.
        /// </summary>
        [Theory]
        [InlineData(2)]
        [InlineData(1)]
        public void A_stream_of_small_messages_does_not_ask_the_input_its_length_for_each(int degree)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed("ipc/pyarrow/tiny_batches.arrows"));
            int messages = IpcMutator.Messages(bytes).Count;
            Assert.True(messages >= 1000, $"{messages} messages");

            var input = new Input(bytes, seekable: true);
            AssertReadsAsOfficial(bytes, input, degree, minimumParallelLength: Frames.Lz4Parallelism.DefaultMinimumLength);
            Assert.True(input.LengthAsked <= 8, $"the input's length was asked {input.LengthAsked} times for {messages} messages");
        }

        /// <summary>Reads every batch through the wrapper from <paramref name="input"/> and compares them with the official reader's.</summary>
        private static void AssertReadsAsOfficial(byte[] bytes, Stream input, int degree, Action? afterFirst = null, int minimumParallelLength = 1)
        {
            List<RecordBatch> official = ArrowData.ReadAll(bytes, fileFormat: false, new OfficialFactory());
            var ours = new List<RecordBatch>();
            try
            {
                using (var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, minimumParallelLength)), SlabMemoryAllocator.Shared))
                {
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    {
                        ours.Add(batch);
                        if (ours.Count == 1)
                            afterFirst?.Invoke();
                    }
                }
                ArrowData.AssertSame(official, ours);
            }
            finally
            {
                ArrowData.DisposeAll(ours);
                ArrowData.DisposeAll(official);
            }
        }

        /// <summary>
        /// Seeded defects in the second batch (its metadata, its body, or the stream cut inside it): at two threads, with
        /// the read-ahead, the reader returns the same batches before the same failure as at one thread without it.
        /// </summary>
        [Fact]
        public void A_defect_in_the_next_message_fails_where_it_would_without_read_ahead() => AssertDefectsFailAsAtOneThread(message: 2, seed: 35);

        private static void AssertDefectsFailAsAtOneThread(int message, int seed)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(Strings));
            List<IpcMutator.Message> messages = IpcMutator.Messages(original);
            IpcMutator.Message target = messages[message];
            var random = new Random(seed);
            int failed = 0;
            for (int i = 0; i < 300; i++)
            {
                byte[] bytes = (byte[])original.Clone();
                string what;
                switch (random.Next(3))
                {
                    case 0:
                        int at = target.Metadata + random.Next(target.MetadataLength);
                        bytes[at] = (byte)random.Next(256);
                        what = $"metadata byte {at}";
                        break;
                    case 1:
                        at = target.Body + random.Next((int)target.BodyLength);
                        bytes[at] ^= (byte)(1 << random.Next(8));
                        what = $"body bit at {at}";
                        break;
                    default:
                        int cut = target.Start + random.Next((int)(target.Body + target.BodyLength - target.Start));
                        bytes = bytes.AsSpan(0, cut).ToArray();
                        what = $"cut at {cut}";
                        break;
                }
                string one = Outcome(bytes, degree: 1);
                string two = Outcome(bytes, degree: 2);
                Assert.True(one == two, $"{what}: one thread gave '{one}', two gave '{two}'");
                failed += one.Contains("InvalidDataException", StringComparison.Ordinal) ? 1 : 0;
            }
            Assert.True(failed > 100, $"only {failed} of 300 mutants failed");
        }

        [Theory]
        [InlineData(1)]
        [InlineData(2)]
        public void An_input_failing_inside_the_next_message_fails_at_its_read(int degree)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(Strings));
            IpcMutator.Message second = IpcMutator.Messages(bytes)[2];
            var input = new Input(bytes, seekable: true) { FailAt = second.Body + (second.BodyLength / 2) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, 1)), SlabMemoryAllocator.Shared);

            using (RecordBatch first = reader.ReadNextRecordBatch())
                Assert.True(first.Length > 0);
            var error = Assert.Throws<IOException>(() => reader.ReadNextRecordBatch());
            Assert.Equal(Input.Failure, error.Message);
        }

        /// <summary>The batches read and how the read ended: the same text at every degree when the read-ahead defers what it meets.</summary>
        private static string Outcome(byte[] bytes, int degree) => Outcome(new MemoryStream(bytes, writable: false), degree);

        private static string Outcome(Stream input, int degree)
        {
            var lengths = new List<int>();
            try
            {
                using var reader = new ArrowStreamReader(new IpcDecompressingStream(input, IpcWrapped.Options(degree, 1)), SlabMemoryAllocator.Shared);
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    lengths.Add(batch.Length);
                    batch.Dispose();
                }
                return $"{string.Join(",", lengths)}: end";
            }
            catch (Exception e)
            {
                return $"{string.Join(",", lengths)}: {e.GetType().Name}: {e.Message}";
            }
        }

        /// <summary>An input over bytes, seekable or not, that counts what was read and can fail once a read reaches a position.</summary>
        private sealed class Input : Stream
        {
            public const string Failure = "the input failed";
            private readonly byte[] _bytes;
            private readonly bool _seekable;
            private long _position;

            public Input(byte[] bytes, bool seekable)
            {
                _bytes = bytes;
                _seekable = seekable;
            }

            public long FailAt { get; set; } = long.MaxValue;

            /// <summary>Where the input ends early although its length says otherwise (a file cut while it is read).</summary>
            public long EndAt { get; set; } = long.MaxValue;

            /// <summary>How far the input has been read.</summary>
            public long Consumed => _position;

            /// <summary>Every read: where it started and how many bytes it asked for.</summary>
            public List<(long At, int Count)> Reads { get; } = new List<(long At, int Count)>();

            public override bool CanRead => true;

            public override bool CanSeek => _seekable;

            public override bool CanWrite => false;

            /// <summary>How many times the input's length was asked (a system call for a file).</summary>
            public int LengthAsked { get; private set; }

            public override long Length
            {
                get
                {
                    LengthAsked++;
                    return _seekable ? _bytes.Length : throw new NotSupportedException();
                }
            }

            public override long Position
            {
                get => _seekable ? _position : throw new NotSupportedException();
                set
                {
                    if (!_seekable)
                        throw new NotSupportedException();
                    _position = value;
                }
            }

            public override int Read(byte[] buffer, int offset, int count)
            {
                Reads.Add((_position, count));
                int n = (int)Math.Max(0, Math.Min(count, Math.Min(_bytes.Length, EndAt) - _position));
                if (_position + n > FailAt)
                {
                    // What lies before the failure arrives first, as from a real input.
                    n = (int)(FailAt - _position);
                    if (n <= 0)
                        throw new IOException(Failure);
                }
                System.Array.Copy(_bytes, _position, buffer, offset, n);
                _position += n;
                return n;
            }

            public override long Seek(long offset, SeekOrigin origin)
            {
                if (!_seekable)
                    throw new NotSupportedException();
                _position = origin switch
                {
                    SeekOrigin.Begin => offset,
                    SeekOrigin.Current => _position + offset,
                    _ => _bytes.Length + offset,
                };
                return _position;
            }

            public override void Flush()
            {
            }

            public override void SetLength(long value) => throw new NotSupportedException();

            public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        }
    }
}
#endif
