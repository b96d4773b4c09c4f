using System;
using System.IO;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// An error the caller's input stream throws passes through as it is, even worded as the IPC layer words its own:
    /// its offset counts in another stream, so neither the message, batch and field of this one are added to it, nor
    /// does the framed reader rename its offset's stream. The layers tell their own errors by data, not by their text.
    /// strings.arrows (pyarrow), cut inside the first record batch's body.
    /// </summary>
    public class ForeignErrorTests
    {
        private const string Strings = "ipc/pyarrow/strings.arrows";

        [Fact]
        public void An_input_error_worded_as_the_streams_own_is_not_named_as_its_own()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            (int start, _) = IpcVerifyingReadTests.Buffer(stream, 1, 2);
            InvalidDataException lookalike = Lookalike(start);

            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new FailingStream(stream, start + 4, lookalike)));
            Exception e = Assert.ThrowsAny<Exception>(() => ArrowData.DisposeAll(ArrowData.ReadAll(reader)));
            Assert.Same(lookalike, e);
        }

        [Fact]
        public void The_framed_reader_lets_an_input_error_worded_as_the_ipc_layers_own_go_as_it_is()
        {
            byte[] stream = File.ReadAllBytes(Corpus.Committed(Strings));
            using var framed = new MemoryStream();
            using (var writer = new Lz4FrameStream(framed, System.IO.Compression.CompressionMode.Compress, leaveOpen: true))
                writer.Write(stream, 0, stream.Length);
            byte[] compressed = framed.ToArray();
            InvalidDataException lookalike = Lookalike(compressed.Length / 2);

            using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new FailingStream(compressed, compressed.Length / 2, lookalike));
            Exception e = Assert.ThrowsAny<Exception>(() => ArrowData.DisposeAll(ArrowData.ReadAll(reader)));
            Assert.Same(lookalike, e);
        }

        /// <summary>An exception worded as IpcDecompressingStream words a defect at <paramref name="offset"/>, as any stream could throw one.</summary>
        private static InvalidDataException Lookalike(long offset)
        {
            string message = $"Invalid Arrow IPC data at byte offset {offset} of the input stream: a defect of the caller's own stream.";
            return new InvalidDataException(message, new Lz4FrameException(message, offset));
        }

        /// <summary>Serves <c>bytes</c> up to <c>end</c>, then throws <c>error</c>.</summary>
        private sealed class FailingStream : Stream
        {
            private readonly byte[] _bytes;
            private readonly int _end;
            private readonly Exception _error;
            private int _position;

            public FailingStream(byte[] bytes, int end, Exception error)
            {
                _bytes = bytes;
                _end = end;
                _error = error;
            }

            public override bool CanRead => true;

            public override bool CanSeek => false;

            public override bool CanWrite => false;

            public override long Length => throw new NotSupportedException();

            public override long Position
            {
                get => throw new NotSupportedException();
                set => throw new NotSupportedException();
            }

            public override int Read(byte[] buffer, int offset, int count)
            {
                if (_position >= _end)
                    throw _error;
                int n = Math.Min(count, _end - _position);
                Buffer.BlockCopy(_bytes, _position, buffer, offset, n);
                _position += n;
                return n;
            }

            public override void Flush()
            {
            }

            public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

            public override void SetLength(long value) => throw new NotSupportedException();

            public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        }
    }
}
