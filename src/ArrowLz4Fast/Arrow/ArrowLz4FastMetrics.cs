using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Names of the <see cref="Meter"/> and instruments every read and write path reports to: the codec, the IPC
    /// streams, the Flight interceptors and <see cref="Lz4FramedArrow"/>, told apart by the <see cref="PathTag"/> tag.
    /// Listen with a <see cref="MeterListener"/>, <c>dotnet-counters monitor --counters ArrowLz4Fast</c>, or
    /// OpenTelemetry's <c>AddMeter("ArrowLz4Fast")</c>. When nothing listens, recording costs a flag check and
    /// allocates nothing; when something does, the tags are cached, so it allocates nothing either.
    /// </summary>
    /// <remarks>
    /// Bytes in and out, per path: the codec counts each buffer (its LZ4 frame and what it decodes to); the IPC streams
    /// and Flight count batch message bodies (the compressed body and the decompressed one, buffers stored raw
    /// included), one message each; the framed path counts the whole LZ4-framed stream and the IPC stream it decodes to,
    /// and its IPC messages. The compression ratio of a path is
    /// <see cref="DecompressedBytesCounterName"/> over <see cref="DecompressInputBytesCounterName"/> when reading, and
    /// <see cref="CompressInputBytesCounterName"/> over <see cref="CompressOutputBytesCounterName"/> when writing.
    /// </remarks>
    public static class ArrowLz4FastMetrics
    {
        /// <summary>Name of the meter.</summary>
        public const string MeterName = "ArrowLz4Fast";

        /// <summary>
        /// Counter of buffers decompressed, tagged <see cref="PathTag"/>: <see cref="PathDirect"/> or
        /// <see cref="PathK4os"/> (<see cref="Lz4FastOptions.UseK4osDecoder"/>) on the codec path,
        /// <see cref="PathIpcStream"/> or <see cref="PathFlight"/> (LZ4 frames of the messages decoded; raw ones not).
        /// </summary>
        public const string DecompressCounterName = "arrowlz4fast.decompress.buffers";

        /// <summary>
        /// Counter of buffers declined as <see cref="System.NotSupportedException"/> rather than decoded, tagged
        /// <see cref="ReasonTag"/> (<see cref="DictionaryIdReason"/>: no decoder can decode them without the dictionary).
        /// </summary>
        public const string DeclinedDecompressCounterName = "arrowlz4fast.decompress.declined";

        /// <summary>Counter of decompressed bytes (bytes out), tagged <see cref="PathTag"/> like <see cref="DecompressCounterName"/>, or <see cref="PathFramed"/>.</summary>
        public const string DecompressedBytesCounterName = "arrowlz4fast.decompress.bytes";

        /// <summary>Counter of compressed bytes read (bytes in), tagged <see cref="PathTag"/> like <see cref="DecompressedBytesCounterName"/>.</summary>
        public const string DecompressInputBytesCounterName = "arrowlz4fast.decompress.input_bytes";

        /// <summary>
        /// Counter of IPC messages read, tagged <see cref="PathTag"/>: <see cref="PathIpcStream"/> and
        /// <see cref="PathFlight"/> count the batches whose LZ4 bodies they decoded, <see cref="PathFramed"/> every IPC
        /// message of the framed stream. The codec sees buffers, not messages, and counts none.
        /// </summary>
        public const string DecompressMessagesCounterName = "arrowlz4fast.decompress.messages";

        /// <summary>Counter of buffers the writer compressed into an LZ4 frame, tagged <see cref="PathTag"/>: <see cref="PathCodec"/>, <see cref="PathIpcStream"/> or <see cref="PathFlight"/>.</summary>
        public const string CompressCounterName = "arrowlz4fast.compress.frames";

        /// <summary>Counter of buffers the writer left uncompressed because the frame would not be smaller (or save enough), tagged like <see cref="CompressCounterName"/>.</summary>
        public const string CompressDeclinedCounterName = "arrowlz4fast.compress.stored_raw";

        /// <summary>Counter of uncompressed bytes given to the writer (bytes in), tagged like <see cref="CompressCounterName"/>.</summary>
        public const string CompressInputBytesCounterName = "arrowlz4fast.compress.input_bytes";

        /// <summary>Counter of bytes the writer wrote for them (bytes out: frames, and buffers stored raw), tagged like <see cref="CompressCounterName"/>.</summary>
        public const string CompressOutputBytesCounterName = "arrowlz4fast.compress.output_bytes";

        /// <summary>Counter of batch messages written, tagged <see cref="PathIpcStream"/> or <see cref="PathFlight"/> (a batch no buffer of which saved space goes as it was, and counts with equal bytes in and out).</summary>
        public const string CompressMessagesCounterName = "arrowlz4fast.compress.messages";

        /// <summary>Tag on the declined counter saying why a frame was declined, and on the trims counter saying why memory was given back.</summary>
        public const string ReasonTag = "reason";

        /// <summary>Tag on the buffers, bytes and messages counters saying which path (and on the codec's read path, which decoder) handled them.</summary>
        public const string PathTag = "path";

        /// <summary>Path: <see cref="IpcDecompressingStream"/> and <see cref="IpcCompressingStream"/>.</summary>
        public const string PathIpcStream = "ipc_stream";

        /// <summary>Path: the Flight interceptors of ArrowLz4Fast.Flight (both sides: what each process compresses and decodes).</summary>
        public const string PathFlight = "flight";

        /// <summary>Path: <see cref="Lz4FramedArrow"/>, the LZ4 frames around a whole IPC stream (LZ4 bodies inside it count as <see cref="PathIpcStream"/>).</summary>
        public const string PathFramed = "framed";

        /// <summary>Path: the codec's writer (<see cref="Lz4FastCodec.TryCompress"/>, as Arrow's writers call it).</summary>
        public const string PathCodec = "codec";

        /// <summary>Path: the package's own decoder, straight into Arrow's buffer (the default).</summary>
        public const string PathDirect = "direct";

        /// <summary>Path: K4os.Compression.LZ4.Streams' frame decoder, as Apache.Arrow.Compression decodes (<see cref="Lz4FastOptions.UseK4osDecoder"/>).</summary>
        public const string PathK4os = "k4os";

        /// <summary>The only reason a well-formed frame is declined: it names a dictionary.</summary>
        public const string DictionaryIdReason = "dictionary_id";

        /// <summary>
        /// Observable gauge: bytes of the blocks <see cref="Memory.SlabMemoryAllocator"/> instances have handed out and
        /// not yet taken back (<see cref="Memory.SlabMemoryAllocator.BytesInUse"/>), summed over every instance of the
        /// process.
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

        private static readonly Counter<long> s_inputBytes = Meter.CreateCounter<long>(DecompressInputBytesCounterName, "By", "Compressed bytes read");
        private static readonly Counter<long> s_messages = Meter.CreateCounter<long>(DecompressMessagesCounterName, "{message}", "IPC messages read");
        private static readonly Counter<long> s_compressInput = Meter.CreateCounter<long>(CompressInputBytesCounterName, "By", "Uncompressed bytes given to the writer");
        private static readonly Counter<long> s_compressOutput = Meter.CreateCounter<long>(CompressOutputBytesCounterName, "By", "Bytes the writer wrote for them");
        private static readonly Counter<long> s_compressMessages = Meter.CreateCounter<long>(CompressMessagesCounterName, "{message}", "Batch messages written");

        // The path tags, made once: a measurement then passes a cached pair and allocates nothing.
        internal static readonly KeyValuePair<string, object?> TagDirect = new(PathTag, PathDirect);
        internal static readonly KeyValuePair<string, object?> TagK4os = new(PathTag, PathK4os);
        internal static readonly KeyValuePair<string, object?> TagIpcStream = new(PathTag, PathIpcStream);
        internal static readonly KeyValuePair<string, object?> TagFlight = new(PathTag, PathFlight);
        internal static readonly KeyValuePair<string, object?> TagFramed = new(PathTag, PathFramed);
        internal static readonly KeyValuePair<string, object?> TagCodec = new(PathTag, PathCodec);

        /// <summary>One buffer decoded by the codec: its frame's length in, <paramref name="bytes"/> out.</summary>
        internal static void RecordDecompress(in KeyValuePair<string, object?> path, int inputBytes, int bytes)
        {
            if (s_buffers.Enabled)
                s_buffers.Add(1, path);
            Add(s_inputBytes, inputBytes, path);
            Add(s_bytes, bytes, path);
        }

        /// <summary>One batch message whose body was decoded: its LZ4 frames, and its body's length in and out.</summary>
        internal static void RecordDecompressMessage(in KeyValuePair<string, object?> path, int frames, long inputBytes, long outputBytes)
        {
            if (s_messages.Enabled)
                s_messages.Add(1, path);
            Add(s_buffers, frames, path);
            Add(s_inputBytes, inputBytes, path);
            Add(s_bytes, outputBytes, path);
        }

        /// <summary>Whether a message's frames are worth counting: something listens to the buffer counters.</summary>
        internal static bool CountsBuffers => s_buffers.Enabled;

        /// <summary>Whether a writer's frames and raw buffers are worth counting.</summary>
        internal static bool CountsCompressedBuffers => s_compressed.Enabled || s_storedRaw.Enabled;

        /// <summary>What a stream-level reader read and served since it last recorded: bytes in, bytes out, messages.</summary>
        internal static void RecordStream(in KeyValuePair<string, object?> path, long inputBytes, long outputBytes, long messages)
        {
            Add(s_inputBytes, inputBytes, path);
            Add(s_bytes, outputBytes, path);
            Add(s_messages, messages, path);
        }

        /// <summary>One batch message written: its frames and raw buffers, and its body's length in and out.</summary>
        internal static void RecordCompressMessage(in KeyValuePair<string, object?> path, int frames, int storedRaw, long inputBytes, long outputBytes)
        {
            if (s_compressMessages.Enabled)
                s_compressMessages.Add(1, path);
            Add(s_compressed, frames, path);
            Add(s_storedRaw, storedRaw, path);
            Add(s_compressInput, inputBytes, path);
            Add(s_compressOutput, outputBytes, path);
        }

        private static void Add(Counter<long> counter, long value, in KeyValuePair<string, object?> path)
        {
            if (value != 0 && counter.Enabled)
                counter.Add(value, path);
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

        /// <summary>One buffer given to the codec's writer: a frame of <paramref name="outputBytes"/>, or stored raw (its own length).</summary>
        internal static void RecordCompress(bool compressed, int inputBytes, int outputBytes)
        {
            Counter<long> counter = compressed ? s_compressed : s_storedRaw;
            if (counter.Enabled)
                counter.Add(1, TagCodec);
            Add(s_compressInput, inputBytes, TagCodec);
            Add(s_compressOutput, compressed ? outputBytes : inputBytes, TagCodec);
        }
    }
}
