using System;
using System.Buffers;
using System.IO;
using Apache.Arrow.Ipc;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Decodes one IPC message given as its metadata (the flatbuffer Message, no prefix) and its body, apart from any
    /// stream: what a Flight <c>FlightData</c> carries. The checks, layout, metadata rewrite and parallel body decode are
    /// <see cref="IpcDecompressingStream"/>'s; the output is new memory the GC owns, since Arrow's Flight reader wraps
    /// the body without owning it. Byte offsets in errors count from the metadata's first byte, the body following it.
    /// Not safe for concurrent use: one per thread or per call.
    /// </summary>
    internal sealed class IpcMessageDecoder
    {
        private readonly IpcBodyDecoder _decoder;
        private readonly IpcBodySource _body = new IpcBodySource();
        private readonly ICompressionCodecFactory? _inner;
        private readonly long _maxBodyLength;
        private byte[] _scratch = Array.Empty<byte>();
        private ICompressionCodec? _zstd;

        /// <param name="options">Checksum and parallelism settings.</param>
        /// <param name="inner">Decodes bodies compressed with codecs other than LZ4_FRAME (ZSTD); <see langword="null"/> for none.</param>
        /// <param name="maxBodyLength">The longest decompressed body a message may declare.</param>
        public IpcMessageDecoder(Lz4FastOptions options, ICompressionCodecFactory? inner, long maxBodyLength)
        {
            Options = options;
            _decoder = new IpcBodyDecoder(options);
            _inner = inner;
            _maxBodyLength = maxBodyLength;
        }

        /// <summary>The options this decoder was made with (callers that cache decoders compare them).</summary>
        public Lz4FastOptions Options { get; }

        /// <summary>
        /// Decodes a message whose body is compressed. Returns <see langword="false"/> (nothing allocated) when it is
        /// not (schema, uncompressed or empty metadata): the message then passes through as it is.
        /// </summary>
        /// <exception cref="InvalidDataException">The metadata or the body is malformed.</exception>
        /// <exception cref="NotSupportedException">A codec other than LZ4_FRAME without an inner factory, or an LZ4 dictionary frame.</exception>
        /// <exception cref="IpcLimitException">The decoded body would pass the decoder's limit; nothing was allocated for it.</exception>
        public bool TryDecode(ReadOnlySpan<byte> metadata, ReadOnlyMemory<byte> body, out ReadOnlyMemory<byte> decodedMetadata, out byte[] decodedBody) =>
            TryDecode(metadata, body, _maxBodyLength, out decodedMetadata, out decodedBody);

        /// <summary>
        /// As <see cref="TryDecode(ReadOnlySpan{byte}, ReadOnlyMemory{byte}, out ReadOnlyMemory{byte}, out byte[])"/>, with a
        /// limit of this call (at most the decoder's own).
        /// </summary>
        /// <exception cref="IpcLimitException">The decoded body would pass the limit; nothing was allocated for it.</exception>
        public bool TryDecode(ReadOnlySpan<byte> metadata, ReadOnlyMemory<byte> body, long maxBodyLength, out ReadOnlyMemory<byte> decodedMetadata, out byte[] decodedBody)
        {
            decodedMetadata = default;
            decodedBody = Array.Empty<byte>();
            if (metadata.IsEmpty)
                return false;
            if (_scratch.Length < metadata.Length)
            {
                ReturnScratch();
                _scratch = ArrayPool<byte>.Shared.Rent(metadata.Length);
            }
            metadata.CopyTo(_scratch);
            var reader = new FlatReader(_scratch, 0, metadata.Length, 0);
            IpcMessage message = IpcMessageParser.Parse(reader);
            if (!message.Compressed || !message.Batch.Exists)
                return false;

            long ratio = IpcBodyLayout.Lz4MaxRatio;
            if (!message.Lz4)
            {
                ratio = IpcBodyLayout.ZstdMaxRatio;
                CheckOtherCodec();
                (message.Nodes, message.NodeCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
                (message.Variadic, message.VariadicCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
            }
            long bodyOffset = metadata.Length;
            if (message.BodyLength > body.Length)
                IpcErrors.Throw(bodyOffset + body.Length, $"the body holds {body.Length} byte(s) but the metadata declares bodyLength {message.BodyLength}");
            IpcBodyLayout.CheckExtents(reader, message);
            IpcBufferItem[] items = ArrayPool<IpcBufferItem>.Shared.Rent(Math.Max(1, message.BufferCount));
            try
            {
                ReadOnlyMemory<byte> source = body.Slice(0, (int)message.BodyLength);
                // A whole body: nothing skipped before any buffer (a pooled array holds what its last user left).
                items.AsSpan(0, message.BufferCount).Clear();
                long output = IpcBodyLayout.Compute(reader, message, source.Span, bodyOffset, items, Math.Min(maxBodyLength, _maxBodyLength), ratio, limitException: true);

                // The rewrite appends a copy of the batch's vtable after the metadata (IpcBodyLayout.Rewrite).
                byte[] rewritten = new byte[IpcBodyLayout.Align(metadata.Length) + message.Batch.VTableSize + 16];
                metadata.CopyTo(rewritten);
                int length = IpcBodyLayout.Rewrite(rewritten, 0, metadata.Length, 0, message, items, output);

                decodedBody = Allocate((int)output, zeroed: !message.Lz4);
                if (message.Lz4)
                {
                    _body.Lay(source, bodyOffset, items, message.BufferCount);
                    _decoder.Decode(_body, decodedBody);
                }
                else
                    DecodeOther(source, decodedBody, bodyOffset, items, message.BufferCount);
                decodedMetadata = new ReadOnlyMemory<byte>(rewritten, 0, length);
                // Only the Flight interceptors decode messages one by one.
                ArrowLz4FastMetrics.RecordDecompressMessage(ArrowLz4FastMetrics.TagFlight, message.Lz4 ? IpcBufferItem.Frames(items, message.BufferCount) : 0, message.BodyLength, output);
                return true;
            }
            finally
            {
                _body.Clear();
                ArrayPool<IpcBufferItem>.Shared.Return(items);
            }
        }

        /// <summary>Returns the pooled arrays and disposes the inner codec.</summary>
        public void Release()
        {
            ReturnScratch();
            _decoder.Release();
            (_zstd as IDisposable)?.Dispose();
            _zstd = null;
        }

        private void ReturnScratch()
        {
            if (_scratch.Length > 0)
                ArrayPool<byte>.Shared.Return(_scratch);
            _scratch = Array.Empty<byte>();
        }

        /// <summary>A ZSTD body, the only other codec the verifier lets through (Parse refuses undefined codecs and methods), needs the inner factory.</summary>
        private void CheckOtherCodec()
        {
            if (_inner is null)
                throw new NotSupportedException("The message's body is ZSTD-compressed and no inner ICompressionCodecFactory was given to decode it: pass one, e.g. new Apache.Arrow.Compression.CompressionCodecFactory(), as the options' InnerCodecFactory.");
        }

        private void DecodeOther(ReadOnlyMemory<byte> body, byte[] destination, long bodyOffset, IpcBufferItem[] items, int count)
        {
            _zstd ??= _inner!.CreateCodec(CompressionCodecType.Zstd);
            for (int i = 0; i < count; i++)
            {
                ref IpcBufferItem item = ref items[i];
                if (item.Raw || (item.SourceLength == 0 && item.Length == 0))
                {
                    body.Span.Slice(item.Source, item.Raw ? item.Length : 0).CopyTo(destination.AsSpan(item.Destination));
                    continue;
                }
                int written;
                try
                {
                    written = _zstd.Decompress(body.Slice(item.Source, item.SourceLength), destination.AsMemory(item.Destination, item.Length));
                }
                catch (Exception e) when (e is not OutOfMemoryException)
                {
                    throw IpcErrors.At(item.InInput(bodyOffset), $"the body buffer's ZSTD frame is invalid: {e.Message}", e);
                }
                if (written != item.Length)
                    IpcErrors.Throw(item.InInput(bodyOffset), $"the ZSTD data decodes to {written} bytes but the buffer declares {item.Length}");
            }
        }

        private static byte[] Allocate(int length, bool zeroed)
        {
            if (length == 0)
                return Array.Empty<byte>();
#if NET
            // The LZ4 decoder writes every byte, padding included (IpcBodyDecoder.Decode).
            if (!zeroed)
                return GC.AllocateUninitializedArray<byte>(length);
#endif
            return new byte[length];
        }
    }
}
