using System;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast.Flight
{
    /// <summary>A snapshot of the options an interceptor was made with, and the per-thread decoder they configure.</summary>
    internal sealed class FlightCodecSettings
    {
        /// <summary>Decoders a thread keeps: enough for a few channels with their own settings read in turn.</summary>
        private const int ThreadCacheSize = 4;

        // The thread's decoders with the settings they were made for, most recently used first.
        [ThreadStatic]
        private static CachedDecoder[]? t_decoders;

        /// <param name="codec">Checksums, parallelism and level.</param>
        /// <param name="inner">Decodes codecs other than LZ4_FRAME.</param>
        /// <param name="maxBodyLength">The longest decoded body one message may have.</param>
        /// <param name="minSpaceSavings">What compressing a buffer must save for it to be sent compressed.</param>
        /// <param name="maxCallLength">The most decoded body bytes one call may receive; <see langword="null"/> for no bound.</param>
        /// <param name="limitOptions">The options type whose limits these are, named in refusals (how to raise them).</param>
        /// <param name="messageLimitSource">Where the message limit came from when not from <paramref name="limitOptions"/>, named in refusals.</param>
        public FlightCodecSettings(Lz4FastOptions? codec, ICompressionCodecFactory? inner, long maxBodyLength, double minSpaceSavings, long? maxCallLength = null, string limitOptions = "the options", string? messageLimitSource = null)
        {
            if (maxBodyLength < 0 || maxBodyLength > IpcDecompressingStream.DefaultMaxBodyLength)
                throw new ArgumentOutOfRangeException(nameof(maxBodyLength), maxBodyLength, $"The limit must be 0 to {IpcDecompressingStream.DefaultMaxBodyLength}.");
            if (maxCallLength < 0)
                throw new ArgumentOutOfRangeException(nameof(maxCallLength), maxCallLength, "The per-call limit must not be negative.");
            if (double.IsNaN(minSpaceSavings) || minSpaceSavings < 0 || minSpaceSavings > 1)
                throw new ArgumentOutOfRangeException(nameof(minSpaceSavings), minSpaceSavings, "The minimum space savings must be 0 to 1.");
            Codec = codec?.Clone() ?? new Lz4FastOptions();
            Inner = inner;
            MaxBodyLength = maxBodyLength;
            MinSpaceSavings = minSpaceSavings;
            MaxCallLength = maxCallLength ?? long.MaxValue;
            LimitOptions = limitOptions;
            MessageLimitAdvice = messageLimitSource is null
                ? $"raise {limitOptions}.MaxReceiveMessageSize (null for none) to accept larger messages"
                : $"this is {messageLimitSource}; raise it, or set {limitOptions}.MaxReceiveMessageSize, to accept larger messages";
        }

        public Lz4FastOptions Codec { get; }

        public ICompressionCodecFactory? Inner { get; }

        public long MaxBodyLength { get; }

        public double MinSpaceSavings { get; }

        /// <summary>The most decoded body bytes one call may receive (<see cref="long.MaxValue"/>: no bound).</summary>
        public long MaxCallLength { get; }

        /// <summary>The options type the limits come from, for refusals: <c>Lz4FlightServerOptions</c> or <c>Lz4FlightClientOptions</c>.</summary>
        public string LimitOptions { get; }

        /// <summary>How a refusal over the message limit tells the operator to raise it.</summary>
        public string MessageLimitAdvice { get; }

        /// <summary>
        /// The decoded-message limit a transport's own receive limit gives (the server's or the channel's, named by
        /// <paramref name="option"/>), or <see cref="ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize"/> when it is
        /// null, under <paramref name="defaultName"/>; and where it came from, as refusals name it.
        /// </summary>
        public static (int Limit, string Source) FromTransport(int? limit, string option, string defaultName) =>
            limit is null
                ? (ArrowLz4FlightExtensions.DefaultMaxReceiveMessageSize, $"{defaultName}, taken because {option} is null")
                : (limit.Value, option);

        /// <summary>A message limit given as gRPC gives one (<see langword="null"/> for none) as a body length.</summary>
        public static long BodyLimit(int? maxReceiveMessageSize)
        {
            if (maxReceiveMessageSize < 0)
                throw new ArgumentOutOfRangeException(nameof(maxReceiveMessageSize), maxReceiveMessageSize, "The receive limit must not be negative.");
            return Math.Min(maxReceiveMessageSize ?? long.MaxValue, IpcDecompressingStream.DefaultMaxBodyLength);
        }

        /// <summary>What a client reads, for the request header: LZ4, and ZSTD when an inner factory can decode it.</summary>
        public string AcceptedCodecs => Inner is null ? Lz4FlightHeaders.Lz4 : Lz4FlightHeaders.Lz4 + ", " + Lz4FlightHeaders.Zstd;

        public IpcMessageDecoder NewDecoder() => new IpcMessageDecoder(Codec, Inner, MaxBodyLength);

        /// <summary>
        /// A decoder for the calling thread. Response marshallers are shared by every call of a method and run on the
        /// thread that reads, one message at a time there, so a decoder per thread needs no lock and no allocation per message.
        /// Channels with different settings read in turn on one thread each keep their decoder (up to
        /// <see cref="ThreadCacheSize"/>); the least recently used one is released when a further one is needed.
        /// </summary>
        public IpcMessageDecoder ThreadDecoder()
        {
            CachedDecoder[] cache = t_decoders ??= new CachedDecoder[ThreadCacheSize];
            if (ReferenceEquals(cache[0].Settings, this))
                return cache[0].Decoder!;
            int found = 1;
            while (found < ThreadCacheSize && !ReferenceEquals(cache[found].Settings, this))
                found++;
            CachedDecoder entry;
            if (found < ThreadCacheSize)
            {
                entry = cache[found];
            }
            else
            {
                found = ThreadCacheSize - 1;
                cache[found].Decoder?.Release();
                entry = new CachedDecoder(this, NewDecoder());
            }
            for (int i = found; i > 0; i--)
                cache[i] = cache[i - 1];
            cache[0] = entry;
            return entry.Decoder!;
        }

        /// <summary>
        /// A decoder of the thread's cache and the settings it was made for, kept as one entry so the two cannot come
        /// apart. The default entry is an empty slot: no settings, no decoder.
        /// </summary>
        private readonly struct CachedDecoder
        {
            public CachedDecoder(FlightCodecSettings settings, IpcMessageDecoder decoder)
            {
                Settings = settings;
                Decoder = decoder;
            }

            public FlightCodecSettings? Settings { get; }

            public IpcMessageDecoder? Decoder { get; }
        }
    }
}
