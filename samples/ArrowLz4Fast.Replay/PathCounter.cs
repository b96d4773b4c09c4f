using System;
using System.Diagnostics.Metrics;

namespace ArrowLz4Fast.Replay
{
    /// <summary>Counts direct decompressions and declined ones (dictionary frames, the `declined` metric) from ArrowLz4Fast's own metrics while it is listening.</summary>
    internal sealed class PathCounter : IDisposable
    {
        private readonly MeterListener _listener = new();
        private long _direct;
        private long _declined;

        public PathCounter()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == ArrowLz4FastMetrics.MeterName
                    && instrument.Name is ArrowLz4FastMetrics.DecompressCounterName or ArrowLz4FastMetrics.DeclinedDecompressCounterName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, state) =>
            {
                if (instrument.Name == ArrowLz4FastMetrics.DeclinedDecompressCounterName)
                    _declined += value;
                else if (tags.Length == 1 && Equals(tags[0].Value, ArrowLz4FastMetrics.PathDirect))
                    _direct += value;
            });
            _listener.Start();
        }

        public long Direct => _direct;

        public long Declined => _declined;

        public void Reset()
        {
            _direct = 0;
            _declined = 0;
        }

        public void Dispose() => _listener.Dispose();
    }
}
