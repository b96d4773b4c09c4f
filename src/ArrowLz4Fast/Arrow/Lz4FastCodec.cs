using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.IO;
using System.Runtime.CompilerServices;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using K4os.Compression.LZ4.Streams;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Apache Arrow's LZ4_FRAME codec, decoding each frame straight into the buffer Arrow allocated and encoding
    /// straight into the buffer Arrow's writer offers. Stateless and safe to use from several threads at once.
    /// </summary>
    /// <remarks>
    /// <see cref="Decompress"/> decodes into the start of the destination and returns the bytes written, as
    /// Apache.Arrow.Compression's codec does, so that Arrow's reader compares them with the length it declared: a
    /// destination may be longer than that length (allocators built on <c>ArrayPool</c> or <c>MemoryPool</c> round
    /// sizes up). Where the codec knows the declared length (a whole buffer of
    /// <see cref="Memory.SlabMemoryAllocator"/>, which is exactly as long as requested, or a frame's content-size field)
    /// it checks it itself. Malformed, truncated or wrongly sized data is an <see cref="InvalidDataException"/> naming
    /// the defect, with its byte offset in the frame in its <see cref="Lz4FrameException"/>
    /// (<see cref="Exception.InnerException"/>). Frames that name a dictionary are the one thing it declines, as
    /// <see cref="NotSupportedException"/> (K4os <c>LZ4Frame.Decode</c> cannot decode them either), after checking
    /// the structure of the whole input.
    /// </remarks>
    public sealed class Lz4FastCodec : ITryCompressionCodec
    {
        private const int MaxArrayLength = 0x7FFFFFC7;

        private readonly Lz4FrameDecoderOptions _decoderOptions;
        private readonly Lz4FrameEncoderOptions _encoderOptions;
        private readonly bool _useK4os;
        private readonly bool _readsArrowPrefix;

        /// <summary>Creates a codec.</summary>
        /// <param name="options">Settings; <see langword="null"/> for the defaults.</param>
        /// <param name="compressionLevel">Level for compression (0 to 12); <see langword="null"/> for <see cref="Lz4FastOptions.CompressionLevel"/>.</param>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="compressionLevel"/> is outside 0 to 12.</exception>
        public Lz4FastCodec(Lz4FastOptions? options = null, int? compressionLevel = null)
            : this(options, compressionLevel, readsArrowPrefix: false)
        {
        }

        /// <param name="options">Settings; <see langword="null"/> for the defaults.</param>
        /// <param name="compressionLevel">Level for compression; <see langword="null"/> for the options' level.</param>
        /// <param name="readsArrowPrefix">
        /// The codec goes to Arrow's reader (<see cref="Lz4FastCodecFactory"/>), which passes each frame right after
        /// its 8-byte declared length in the same memory: the codec reads that length there (<see cref="ArrowPrefix"/>).
        /// </param>
        internal Lz4FastCodec(Lz4FastOptions? options, int? compressionLevel, bool readsArrowPrefix)
        {
            options ??= new Lz4FastOptions();
            if (compressionLevel.HasValue)
                _ = new Lz4FrameEncoderOptions(level: compressionLevel.Value);
            _decoderOptions = options.DecoderOptions;
            _encoderOptions = options.EncoderOptions(compressionLevel);
            _useK4os = options.UseK4osDecoder;
            _readsArrowPrefix = readsArrowPrefix;
        }

        // The frame settings this codec writes with (tests read them).
        internal Lz4FrameEncoderOptions EncoderOptions => _encoderOptions;

        /// <summary>Decodes one Arrow LZ4_FRAME buffer (the bytes after the 8-byte length prefix) into the start of <paramref name="destination"/>.</summary>
        /// <param name="source">The LZ4 frame; empty for an empty buffer (Arrow .NET and Java write no frame then).</param>
        /// <param name="destination">
        /// At least the declared uncompressed length. A longer destination (a pooled allocator's rounded-up buffer) is
        /// fine: the bytes past the decoded length are left unspecified, and the caller checks the returned length.
        /// </param>
        /// <returns>
        /// The number of bytes decoded into the start of <paramref name="destination"/>. For a whole buffer of
        /// <see cref="Memory.SlabMemoryAllocator"/> it is always the destination's length (anything else throws).
        /// </returns>
        /// <exception cref="InvalidDataException">
        /// The frame is malformed, truncated or fails a checksum; it decodes to more than the destination holds; or it
        /// decodes to fewer bytes than a <see cref="Memory.SlabMemoryAllocator"/> buffer's requested (declared) length.
        /// The inner <see cref="Lz4FrameException"/> has the offset.
        /// </exception>
        /// <exception cref="NotSupportedException">The frame was compressed against a dictionary.</exception>
        public int Decompress(ReadOnlyMemory<byte> source, Memory<byte> destination)
        {
            // Arrow's reader checks the decoded length itself only after this returns, with a bare Exception: where its
            // declared length can be read before the frame, the codec holds the decode to it and reports a mismatch as
            // corrupt data, whatever the allocator (Arrow's own hands out exactly that length, pools round it up).
            var prefix = ArrowPrefix.None;
            if (_readsArrowPrefix && ArrowPrefix.TryRead(source, destination.Length, out prefix))
                destination = destination.Slice(0, prefix.DeclaredLength);

            // A buffer of the package's allocator need not be zeroed first: success writes every byte of it (its length is
            // the declared length, so a shorter decode fails), and a failure zeroes it here, so it never shows bytes of
            // the buffer its memory held before.
            bool clearSkipped = SlabMemoryOwner.TrySkipClear(destination, out bool lengthIsDeclared);
            try
            {
                return DecompressCore(source, destination, lengthIsDeclared || prefix.IsKnown);
            }
            catch (InvalidDataException e) when (ReferTo(e, prefix) is { } named)
            {
                if (clearSkipped)
                    destination.Span.Clear();
                throw named;
            }
            catch when (clearSkipped)
            {
                destination.Span.Clear();
                throw;
            }
        }

        private int DecompressCore(ReadOnlyMemory<byte> source, Memory<byte> destination, bool lengthIsDeclared)
        {
            ReadOnlySpan<byte> input = source.Span;
            Span<byte> output = destination.Span;

            // Arrow .NET and Arrow Java write an empty buffer as a bare 0 length with no frame at all.
            if (input.IsEmpty)
            {
                if (lengthIsDeclared && !output.IsEmpty)
                    ThrowNoFrame(output.Length);
                ArrowLz4FastMetrics.RecordDecompress(_useK4os ? ArrowLz4FastMetrics.TagK4os : ArrowLz4FastMetrics.TagDirect, 0, 0);
                return 0;
            }
            if (_useK4os)
                return DecompressWithK4os(source, output, lengthIsDeclared);

            switch (Lz4FrameDecoder.Decode(input, output, out int consumed, out int written, _decoderOptions))
            {
                case Lz4FrameDecodeStatus.Done:
                    if (lengthIsDeclared && written != output.Length)
                        ThrowTooShort(consumed, written, output.Length);
                    ArrowLz4FastMetrics.RecordDecompress(ArrowLz4FastMetrics.TagDirect, consumed, written);
                    return written;
                case Lz4FrameDecodeStatus.DestinationTooSmall:
                    ThrowTooLong(consumed, written, output.Length, lengthIsDeclared);
                    return 0;
                default:
                    // No decoder here or in K4os can decode against a dictionary the caller cannot supply; the
                    // rest of the input was still checked, so corrupt input is reported as such before this.
                    ArrowLz4FastMetrics.RecordDeclined(ArrowLz4FastMetrics.DictionaryIdReason);
                    throw DictionaryNotSupported(consumed, Lz4FrameDescriptor.Read(input, consumed).DictionaryId);
            }
        }

        /// <summary>
        /// The K4os path: K4os's frame decoder reads the input as Apache.Arrow.Compression has it read, into Arrow's
        /// buffer, and this method holds it to the package's contract: all of the input read, no more than the
        /// destination written (exactly the declared length when it is known), failures as <see cref="InvalidDataException"/> with a <see cref="Lz4FrameException"/> inside.
        /// </summary>
        private static int DecompressWithK4os(ReadOnlyMemory<byte> source, Span<byte> output, bool lengthIsDeclared)
        {
            ReadOnlySpan<byte> input = source.Span;
            // K4os reads past reserved bits and undefined block sizes, and ignores the content size: the header is
            // checked here, so a longer destination cannot turn a malformed header into a short success.
            Lz4FrameDescriptor header = default;
            bool hasHeader = input.Length >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(input) == 0x184D2204;
            if (hasHeader)
                header = Lz4FrameDescriptor.Read(input, 0);
            // K4os cannot decode against a dictionary either (it throws NotImplementedException): say so plainly.
            if (hasHeader && header.HasDictionaryId)
            {
                ArrowLz4FastMetrics.RecordDeclined(ArrowLz4FastMetrics.DictionaryIdReason);
                throw DictionaryNotSupported(0, header.DictionaryId);
            }

            var stream = new ReadOnlyMemoryStream(source);
            int written;
            bool more;
            try
            {
                using var decoder = LZ4Frame.Decode(stream, 0, leaveOpen: true);
                written = decoder.ReadManyBytes(output);
                Span<byte> probe = stackalloc byte[1];
                more = written == output.Length && decoder.ReadManyBytes(probe) != 0;
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                throw K4osFailed(stream.Position, e);
            }

            if (more)
                ThrowTooLong((int)stream.Position, written, output.Length, lengthIsDeclared);
            // liblz4 reads a content size of 0 as "unknown".
            if (header.ContentSize is ulong contentSize && contentSize != 0 && contentSize != (ulong)written)
                throw Invalid(Lz4FrameErrorKind.ContentSize, stream.Position, $"the frame header declares a content size of {contentSize} bytes but its blocks decode to {written} bytes");
            if (lengthIsDeclared && written != output.Length)
                ThrowTooShort((int)stream.Position, written, output.Length);
            if (stream.Position != input.Length)
                ThrowTrailing(stream.Position, input.Length);
            ArrowLz4FastMetrics.RecordDecompress(ArrowLz4FastMetrics.TagK4os, input.Length, written);
            return written;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static InvalidDataException K4osFailed(long read, Exception e)
        {
            string what = $"K4os.Compression.LZ4's frame decoder failed after reading that many bytes: {e.Message.TrimEnd('.')}";
            string message = $"Invalid LZ4 data at byte offset {read} {WithinFrame}: {what}.";
            return new OwnError(OffsetOrigin.BufferFrame, OwnErrorShape.Invalid, read, what).Mark(new InvalidDataException(message, new Lz4FrameException(message, Lz4FrameErrorKind.Unspecified, what, read, e)));
        }

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowTrailing(long end, int length) =>
            throw Invalid(Lz4FrameErrorKind.TrailingData, end, $"{length - end} unexpected byte(s) after the LZ4 frame");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowNoFrame(int expected) =>
            throw Invalid(Lz4FrameErrorKind.DecodedLength, 0, $"the buffer holds no LZ4 frame but {expected} decoded bytes are expected");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowTooShort(int offset, int written, int expected) =>
            throw Invalid(Lz4FrameErrorKind.DecodedLength, offset, $"the LZ4 data ends after {written} decoded bytes but the Arrow buffer declares {expected}");

        [DoesNotReturn]
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ThrowTooLong(int offset, int written, int room, bool lengthIsDeclared) =>
            throw Invalid(Lz4FrameErrorKind.DecodedLength, offset, lengthIsDeclared
                ? $"the LZ4 data decodes to more than the {room} bytes the Arrow buffer declares ({written} decoded before this point)"
                : $"the LZ4 data decodes to more than the {room}-byte destination holds ({written} decoded before this point)");

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static NotSupportedException DictionaryNotSupported(int frameOffset, uint? dictionaryId) =>
            Lz4FrameErrors.DictionaryNotSupported($"The LZ4 frame (byte offset {frameOffset} of this buffer)", frameOffset, Lz4FrameErrors.DictionaryDetail(dictionaryId));

        private static InvalidDataException Invalid(Lz4FrameErrorKind kind, long offset, string what)
        {
            string message = $"Invalid LZ4 data at byte offset {offset} {WithinFrame}: {what}.";
            return new OwnError(OffsetOrigin.BufferFrame, OwnErrorShape.Invalid, offset, what).Mark(new InvalidDataException(message, new Lz4FrameException(message, kind, what, offset)));
        }

        private const string WithinFrame = "within this buffer's LZ4 frame";

        /// <summary>
        /// The exception to throw instead of <paramref name="e"/>: the same defect and offset, with the offset's frame
        /// of reference named (the frame layer's messages say only "at byte offset N") and the buffer's place when
        /// Arrow's prefix gave it; <see langword="null"/> to let <paramref name="e"/> go as it is.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static InvalidDataException? ReferTo(InvalidDataException e, ArrowPrefix prefix)
        {
            if (e.InnerException is not Lz4FrameException frame || frame.Offset < 0)
                return null;
            // The codec's own exceptions already name the frame: only the buffer's place would be new.
            if (!prefix.IsKnown && OwnError.Of(e) is { Origin: OffsetOrigin.BufferFrame })
                return null;
            string message = $"Invalid LZ4 data at byte offset {frame.Offset} {WithinFrame}{prefix.Describe()}: {frame.Detail}.";
            return new InvalidDataException(message, new Lz4FrameException(message, frame.Kind, frame.Detail, frame.Offset, frame.InnerException ?? e));
        }

        /// <summary>Writes <paramref name="source"/> to <paramref name="destination"/> as one LZ4 frame.</summary>
        /// <param name="source">The bytes to compress.</param>
        /// <param name="destination">The stream the frame is written to.</param>
        public void Compress(ReadOnlyMemory<byte> source, Stream destination)
        {
            if (destination is null) throw new ArgumentNullException(nameof(destination));
            long max = Lz4FrameEncoder.GetMaxEncodedLength(source.Length, _encoderOptions);
            if (max > MaxArrayLength)
                throw new ArgumentOutOfRangeException(nameof(source), source.Length, "The buffer is too large to compress into one frame.");

            byte[] frame = ArrayPool<byte>.Shared.Rent((int)max);
            try
            {
                if (!Lz4FrameEncoder.TryEncode(source.Span, frame, out int written, _encoderOptions))
                    throw new InvalidOperationException("An LZ4 frame did not fit in its worst-case length.");
                ArrowLz4FastMetrics.RecordCompress(compressed: true, source.Length, written);
                destination.Write(frame, 0, written);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(frame);
            }
        }

        /// <summary>
        /// Encodes <paramref name="source"/> as one LZ4 frame straight into <paramref name="destination"/>. Arrow's
        /// writer offers a destination the size of the source, so <see langword="false"/> (the frame would not be
        /// smaller) makes it store the buffer uncompressed.
        /// </summary>
        /// <param name="source">The bytes to compress.</param>
        /// <param name="destination">Where the frame goes.</param>
        /// <param name="bytesWritten">The frame's length; 0 when the method returns <see langword="false"/>.</param>
        /// <returns><see langword="false"/> when the frame does not fit in <paramref name="destination"/>.</returns>
        public bool TryCompress(ReadOnlyMemory<byte> source, Memory<byte> destination, out int bytesWritten)
        {
            bool fits = Lz4FrameEncoder.TryEncode(source.Span, destination.Span, out bytesWritten, _encoderOptions);
            ArrowLz4FastMetrics.RecordCompress(fits, source.Length, bytesWritten);
            return fits;
        }

        /// <summary>Does nothing: the codec holds no resources.</summary>
        public void Dispose()
        {
        }
    }
}
