using System;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Flight
{
    /// <summary>A snapshot of the options an interceptor was made with, and the per-thread decoder they configure.</summary>
    internal sealed class FlightCodecSettings
    {
        [ThreadStatic]
        private static IpcMessageDecoder? t_decoder;

        [ThreadStatic]
        private static FlightCodecSettings? t_decoderSettings;

        public FlightCodecSettings(Lz4FastOptions? codec, ICompressionCodecFactory? inner, long maxBodyLength, double minSpaceSavings)
        {
            if (maxBodyLength < 0 || maxBodyLength > IpcDecompressingStream.DefaultMaxBodyLength)
                throw new ArgumentOutOfRangeException(nameof(maxBodyLength), maxBodyLength, $"The limit must be 0 to {IpcDecompressingStream.DefaultMaxBodyLength}.");
            if (double.IsNaN(minSpaceSavings) || minSpaceSavings < 0 || minSpaceSavings > 1)
                throw new ArgumentOutOfRangeException(nameof(minSpaceSavings), minSpaceSavings, "The minimum space savings must be 0 to 1.");
            Codec = codec?.Clone() ?? new Lz4FastOptions();
            Inner = inner;
            MaxBodyLength = maxBodyLength;
            MinSpaceSavings = minSpaceSavings;
        }

        public Lz4FastOptions Codec { get; }

        public ICompressionCodecFactory? Inner { get; }

        public long MaxBodyLength { get; }

        public double MinSpaceSavings { get; }

        /// <summary>What a client reads, for the request header: LZ4, and ZSTD when an inner factory can decode it.</summary>
        public string AcceptedCodecs => Inner is null ? Lz4FlightHeaders.Lz4 : Lz4FlightHeaders.Lz4 + ", " + Lz4FlightHeaders.Zstd;

        public IpcMessageDecoder NewDecoder() => new IpcMessageDecoder(Codec, Inner, MaxBodyLength);

        /// <summary>
        /// A decoder for the calling thread. Response marshallers are shared by every call of a method and run on the
        /// thread that reads, one message at a time there, so a decoder per thread needs no lock and no allocation per message.
        /// </summary>
        public IpcMessageDecoder ThreadDecoder()
        {
            if (t_decoder is null || !ReferenceEquals(t_decoderSettings, this))
            {
                t_decoder?.Release();
                t_decoder = NewDecoder();
                t_decoderSettings = this;
            }
            return t_decoder;
        }
    }
}
