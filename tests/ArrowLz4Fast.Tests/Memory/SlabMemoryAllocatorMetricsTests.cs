using System;
using System.Buffers;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Threading;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The allocator's gauges and trims counter on the ArrowLz4Fast meter. Serial: the gauges sum over every allocator
    /// of the process, so another test's allocator would move them.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class SlabMemoryAllocatorMetricsTests
    {
        [Fact]
        public void Gauges_report_bytes_in_use_bytes_retained_and_slabs_and_trims_are_counted_by_reason()
        {
            // The gauges sum over every allocator of the process: settle the others (collect the dropped ones, trim the
            // shared one) so that only this test's allocator moves them.
            for (int i = 0; i < 3; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            SlabMemoryAllocator.Shared.Trim();
            var gauges = new Dictionary<string, long>();
            var trims = new Dictionary<string, long>();
            using var listener = new MeterListener();
            listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == ArrowLz4FastMetrics.MeterName && instrument.Name.StartsWith("arrowlz4fast.memory.", StringComparison.Ordinal))
                    l.EnableMeasurementEvents(instrument);
            };
            listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
            {
                if (instrument.Name == ArrowLz4FastMetrics.MemoryTrimsCounterName)
                {
                    foreach (KeyValuePair<string, object?> tag in tags)
                    {
                        if (tag.Key == ArrowLz4FastMetrics.ReasonTag)
                            lock (trims)
                                trims[(string)tag.Value!] = trims.GetValueOrDefault((string)tag.Value!) + value;
                    }
                }
                else
                {
                    gauges[instrument.Name] = value;
                }
            });
            listener.Start();

            var allocator = new SlabMemoryAllocator(new SlabMemoryAllocatorOptions { MaxIdleBytes = 8 << 20, IdleTrimDelay = TimeSpan.FromMilliseconds(50) });
            (long inUse, long retained, long slabs) before = Observe();
            IMemoryOwner<byte> small = allocator.Allocate(1000);
            IMemoryOwner<byte> large = allocator.Allocate(10_000_000);
            (long inUse, long retained, long slabs) during = Observe();
            Assert.Equal(allocator.BytesInUse, during.inUse - before.inUse);
            Assert.Equal(allocator.BytesRetained, during.retained - before.retained);
            Assert.Equal(2, during.slabs - before.slabs);

            large.Dispose(); // 10 MiB free > the 8 MiB cap: given back at once
            Assert.Equal(1, Trims(ArrowLz4FastMetrics.TrimLimit));
            allocator.Allocate(300_000).Dispose(); // under the cap: kept
            Assert.Equal(1, Trims(ArrowLz4FastMetrics.TrimLimit));
            Assert.Equal(327_680, allocator.Trim());
            Assert.Equal(1, Trims(ArrowLz4FastMetrics.TrimExplicit));
            small.Dispose();
            Assert.True(SpinWait.SpinUntil(() => Trims(ArrowLz4FastMetrics.TrimIdle) >= 1, TimeSpan.FromSeconds(30)));
            (long inUse, long retained, long slabs) after = Observe();
            Assert.Equal(before, after);

            (long, long, long) Observe()
            {
                listener.RecordObservableInstruments();
                return (gauges[ArrowLz4FastMetrics.MemoryInUseGaugeName], gauges[ArrowLz4FastMetrics.MemoryRetainedGaugeName], gauges[ArrowLz4FastMetrics.MemorySlabsGaugeName]);
            }

            long Trims(string reason)
            {
                lock (trims)
                    return trims.GetValueOrDefault(reason);
            }
        }
    }
}
