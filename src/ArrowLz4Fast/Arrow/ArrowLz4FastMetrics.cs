using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Names of the <see cref="Meter"/> and instruments the codec reports to. Listen with a
    /// <see cref="MeterListener"/>, <c>dotnet-counters monitor --counters ArrowLz4Fast</c>, or OpenTelemetry's
    /// <c>AddMeter("ArrowLz4Fast")</c>. When nothing listens, recording costs a flag check and allocates nothing.
    /// </summary>
    public static class ArrowLz4FastMetrics
    {
        /// <summary>Name of the meter.</summary>
        public const string MeterName = "ArrowLz4Fast";

        /// <summary>
        /// Counter of buffers decompressed, tagged <see cref="PathTag"/>: <see cref="PathDirect"/> or
        /// <see cref="PathK4os"/> (<see cref="Lz4FastOptions.UseK4osDecoder"/>).
        /// </summary>
        public const string DecompressCounterName = "arrowlz4fast.decompress.buffers";

        /// <summary>
        /// Counter of buffers declined as <see cref="System.NotSupportedException"/> rather than decoded, tagged
        /// <see cref="ReasonTag"/> (<see cref="DictionaryIdReason"/>: no decoder can decode them without the dictionary).
        /// </summary>
        public const string DeclinedDecompressCounterName = "arrowlz4fast.decompress.declined";

        /// <summary>Counter of decompressed bytes, tagged <see cref="PathTag"/> like <see cref="DecompressCounterName"/>.</summary>
        public const string DecompressedBytesCounterName = "arrowlz4fast.decompress.bytes";

        /// <summary>Counter of buffers the writer compressed into an LZ4 frame.</summary>
        public const string CompressCounterName = "arrowlz4fast.compress.frames";

        /// <summary>Counter of buffers the writer left uncompressed because the frame would not be smaller.</summary>
        public const string CompressDeclinedCounterName = "arrowlz4fast.compress.stored_raw";

        /// <summary>Tag on the declined counter saying why a frame was declined, and on the trims counter saying why memory was given back.</summary>
        public const string ReasonTag = "reason";

        /// <summary>Tag on the buffers and bytes counters saying which decoder produced them.</summary>
        public const string PathTag = "path";

        /// <summary>Path: the package's own decoder, straight into Arrow's buffer (the default).</summary>
        public const string PathDirect = "direct";

        /// <summary>Path: K4os.Compression.LZ4.Streams' frame decoder, as Apache.Arrow.Compression decodes (<see cref="Lz4FastOptions.UseK4osDecoder"/>).</summary>
        public const string PathK4os = "k4os";

        /// <summary>The only reason a well-formed frame is declined: it names a dictionary.</summary>
        public const string DictionaryIdReason = "dictionary_id";

        /// <summary>
        /// Observable gauge: bytes of the blocks <see cref="Memory.SlabMemoryAllocator"/> instances have handed out and
        /// not yet taken back (requests rounded up to their size class), summed over every instance of the process.
        /// </summary>
        public const string MemoryInUseGaugeName = "arrowlz4fast.memory.in_use";

        /// <summary>Observable gauge: bytes of native memory the allocators hold from the OS (in use and free), summed.</summary>
        public const string MemoryRetainedGaugeName = "arrowlz4fast.memory.retained";

        /// <summary>Observable gauge: number of slabs the allocators hold, summed.</summary>
        public const string MemorySlabsGaugeName = "arrowlz4fast.memory.slabs";

        /// <summary>
        /// Counter of trims: passes that gave at least one slab back to the OS, tagged <see cref="ReasonTag"/>
        /// (<see cref="TrimIdle"/>, <see cref="TrimExplicit"/> or <see cref="TrimLimit"/>).
        /// </summary>
        public const string MemoryTrimsCounterName = "arrowlz4fast.memory.trims";

        /// <summary>Trim reason: the allocator had been idle for its <c>IdleTrimDelay</c>.</summary>
        public const string TrimIdle = "idle";

        /// <summary>Trim reason: <see cref="Memory.SlabMemoryAllocator.Trim"/> was called.</summary>
        public const string TrimExplicit = "explicit";

        /// <summary>Trim reason: returned buffers took free memory past <c>MaxIdleBytes</c>.</summary>
        public const string TrimLimit = "limit";

        internal static readonly Meter Meter = new(MeterName);
        private static readonly Counter<long> s_buffers = Meter.CreateCounter<long>(DecompressCounterName, "{buffer}", "Buffers decompressed, by decoder path");
        private static readonly Counter<long> s_declined = Meter.CreateCounter<long>(DeclinedDecompressCounterName, "{buffer}", "Buffers declined as not supported (dictionary frames)");
        private static readonly Counter<long> s_bytes = Meter.CreateCounter<long>(DecompressedBytesCounterName, "By", "Decompressed bytes");
        private static readonly Counter<long> s_compressed = Meter.CreateCounter<long>(CompressCounterName, "{buffer}", "Buffers written as LZ4 frames");
        private static readonly Counter<long> s_storedRaw = Meter.CreateCounter<long>(CompressDeclinedCounterName, "{buffer}", "Buffers left uncompressed because LZ4 did not shrink them");
        private static readonly Counter<long> s_trims = Meter.CreateCounter<long>(MemoryTrimsCounterName, "{trim}", "Passes that gave allocator slabs back to the OS");
        private static readonly ObservableGauge<long>[] s_memoryGauges =
        {
            Meter.CreateObservableGauge(MemoryInUseGaugeName, static () => SlabAllocatorRegistry.Sum(static a => a.BytesInUse), "By", "Bytes of allocator blocks in use"),
            Meter.CreateObservableGauge(MemoryRetainedGaugeName, static () => SlabAllocatorRegistry.Sum(static a => a.BytesRetained), "By", "Bytes of native memory the allocators hold"),
            Meter.CreateObservableGauge(MemorySlabsGaugeName, static () => SlabAllocatorRegistry.Sum(static a => a.SlabCount), "{slab}", "Slabs the allocators hold"),
        };

        internal static void RecordDecompress(string path, int bytes)
        {
            if (s_buffers.Enabled)
                s_buffers.Add(1, new KeyValuePair<string, object?>(PathTag, path));
            if (s_bytes.Enabled)
                s_bytes.Add(bytes, new KeyValuePair<string, object?>(PathTag, path));
        }

        internal static void RecordDeclined(string reason)
        {
            if (s_declined.Enabled)
                s_declined.Add(1, new KeyValuePair<string, object?>(ReasonTag, reason));
        }

        /// <summary>Creates the memory instruments (static fields of this class) before the first allocator is used.</summary>
        internal static void EnsureMemoryInstruments() => GC.KeepAlive(s_memoryGauges);

        internal static void RecordTrim(string reason)
        {
            if (s_trims.Enabled)
                s_trims.Add(1, new KeyValuePair<string, object?>(ReasonTag, reason));
        }

        internal static void RecordCompress(bool compressed)
        {
            Counter<long> counter = compressed ? s_compressed : s_storedRaw;
            if (counter.Enabled)
                counter.Add(1);
        }
    }
}
