using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>Wraps a factory and records the length and SHA-256 of every buffer its codecs decompress, in call order.</summary>
    internal sealed class RecordingCodecFactory : ICompressionCodecFactory
    {
        private readonly ICompressionCodecFactory _inner;

        public RecordingCodecFactory(ICompressionCodecFactory inner) => _inner = inner;

        public List<(int Length, string Sha256)> Decompressed { get; } = new();

        /// <summary>Copies of every compressed input (the frame after the 8-byte prefix) with its destination length.</summary>
        public List<(byte[] Frame, int Length)> Inputs { get; } = new();

        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) => CreateCodec(compressionCodecType, null);

        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) =>
            new RecordingCodec(_inner.CreateCodec(compressionCodecType, compressionLevel), Decompressed, Inputs);

        private sealed class RecordingCodec : ICompressionCodec
        {
            private readonly ICompressionCodec _codec;
            private readonly List<(int, string)> _log;
            private readonly List<(byte[], int)> _inputs;

            public RecordingCodec(ICompressionCodec codec, List<(int, string)> log, List<(byte[], int)> inputs)
            {
                _codec = codec;
                _log = log;
                _inputs = inputs;
            }

            public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
            {
                _inputs.Add((source.ToArray(), destination.Length));
                int written = _codec.Decompress(source, destination);
                _log.Add((written, Hex.Sha256(destination.Span.Slice(0, written))));
                return written;
            }

            public void Compress(ReadOnlyMemory<byte> source, Stream destination) => _codec.Compress(source, destination);

            public void Dispose() => _codec.Dispose();
        }
    }
}
