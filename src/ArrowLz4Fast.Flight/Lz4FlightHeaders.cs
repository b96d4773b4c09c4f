namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// The request header by which a Flight client says which body compression codecs it reads (docs/flight.md): Flight
    /// has no negotiation of its own, and a client without a codec fails on compressed batches.
    /// </summary>
    public static class Lz4FlightHeaders
    {
        /// <summary>The gRPC metadata key, <c>arrow-flight-accept-codecs</c>; its value lists codecs, comma-separated, e.g. <c>lz4, zstd</c>.</summary>
        public const string AcceptCodecs = "arrow-flight-accept-codecs";

        /// <summary>The token for LZ4_FRAME body compression.</summary>
        public const string Lz4 = "lz4";

        /// <summary>The token for ZSTD body compression.</summary>
        public const string Zstd = "zstd";

        /// <summary>Whether a header value lists <paramref name="codec"/> (case-insensitive; spaces and quotes ignored).</summary>
        /// <param name="value">The header's value, or <see langword="null"/>.</param>
        /// <param name="codec">A token such as <see cref="Lz4"/>.</param>
        /// <returns><see langword="true"/> when the value lists the codec.</returns>
        public static bool Lists(string? value, string codec)
        {
            if (value is null || codec is null)
                return false;
            foreach (string token in value.Split(','))
            {
                if (string.Equals(token.Trim(' ', '\t', '"'), codec, System.StringComparison.OrdinalIgnoreCase))
                    return true;
            }
            return false;
        }
    }
}
