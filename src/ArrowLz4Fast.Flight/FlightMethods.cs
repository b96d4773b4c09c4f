namespace ArrowLz4Fast.Flight
{
    /// <summary>The Flight methods that carry FlightData streams (format/Flight.proto, service FlightService).</summary>
    internal static class FlightMethods
    {
        public const string DoGet = "/arrow.flight.protocol.FlightService/DoGet";
        public const string DoPut = "/arrow.flight.protocol.FlightService/DoPut";
        public const string DoExchange = "/arrow.flight.protocol.FlightService/DoExchange";
    }
}
