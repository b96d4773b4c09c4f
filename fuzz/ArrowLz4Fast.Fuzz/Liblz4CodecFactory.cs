using System;
using System.IO;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// Arrow's codec interface over native liblz4 for LZ4 frames (ZSTD through Apache.Arrow.Compression): the arbiter
    /// when the package's read and Apache.Arrow.Compression's disagree. That codec's LZ4 decoder (K4os) does not
    /// decode every corrupt frame as liblz4 does, and liblz4's bytes are the reference.
    /// </summary>
    internal sealed class Liblz4CodecFactory : ICompressionCodecFactory
    {
        private readonly ICompressionCodecFactory _others = new Apache.Arrow.Compression.CompressionCodecFactory();

        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType) =>
            compressionCodecType == CompressionCodecType.Lz4Frame ? new Codec() : _others.CreateCodec(compressionCodecType);

        public ICompressionCodec CreateCodec(CompressionCodecType compressionCodecType, int? compressionLevel) =>
            CreateCodec(compressionCodecType);

        private sealed class Codec : ICompressionCodec
        {
            private readonly Liblz4 _liblz4 = new();

            /// <summary>The frame as liblz4 decodes it; Arrow's reader then checks the length against the declared one.</summary>
            public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
            {
                Reference reference = _liblz4.Decode(source.Span);
                if (!reference.Accepts || reference.Output!.Length > destination.Length)
                    throw new InvalidDataException($"liblz4 {reference}, room for {destination.Length} byte(s)");
                reference.Output.CopyTo(destination.Span);
                return reference.Output.Length;
            }

            public void Compress(ReadOnlyMemory<byte> source, Stream destination) => throw new NotSupportedException("the arbiter only decodes");

            public void Dispose() => _liblz4.Dispose();
        }
    }
}
