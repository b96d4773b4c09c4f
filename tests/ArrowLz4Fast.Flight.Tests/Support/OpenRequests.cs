using System;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// The requests a test host has open, from ASP.NET Core's own count (<c>http.server.active_requests</c> of the host's
    /// meter, other hosts' left out). A gRPC call is one request on one HTTP/2 stream, from its headers until the handler
    /// has returned and the response ended: a call the client left open, with the server still writing, counts here.
    /// </summary>
    internal sealed class OpenRequests : IDisposable
    {
        private readonly MeterListener _listener = new MeterListener();
        private long _open;

        /// <summary>Counts from now: start it while the host is idle.</summary>
        public OpenRequests(TestHost host)
        {
            object factory = host.Services.GetRequiredService<IMeterFactory>();
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (ReferenceEquals(instrument.Meter.Scope, factory) && instrument.Meter.Name == "Microsoft.AspNetCore.Hosting" && instrument.Name == "http.server.active_requests")
                    listener.EnableMeasurementEvents(instrument);
            };
            _listener.SetMeasurementEventCallback<long>((_, change, _, _) => Interlocked.Add(ref _open, change));
            _listener.Start();
        }

        public long Count => Interlocked.Read(ref _open);

        /// <summary>
        /// The count once it is zero, or what it is after <paramref name="bound"/>: a reset stream ends its handler a
        /// moment after the client's call returned.
        /// </summary>
        public async Task<long> SettledAsync(TimeSpan bound)
        {
            var clock = Stopwatch.StartNew();
            while (Count != 0 && clock.Elapsed < bound)
                await Task.Delay(10);
            return Count;
        }

        public void Dispose() => _listener.Dispose();
    }
}
