using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Memory;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Random access to an Arrow IPC file (Feather V2) whose bodies are LZ4_FRAME-compressed (or ZSTD-compressed, or not
    /// compressed): the batch count and batch
    /// <i>i</i> from the footer, as <c>ArrowFileReader.ReadRecordBatch(int)</c> gives them, reading only that batch's
    /// metadata and the byte ranges of the fields <see cref="Lz4FastOptions.Projection"/> selects, decoded in parallel
    /// by <see cref="IpcDecompressingStream"/>'s engine.
    /// </summary>
    /// <remarks>
    /// <code>
    /// using var file = new Lz4ArrowFileReader(path, new Lz4FastOptions { Projection = IpcProjection.ByName("id", "price") }, null);
    /// using RecordBatch last = file.ReadRecordBatch(file.RecordBatchCount - 1);
    /// </code>
    /// Opening reads and checks the footer and the schema. The dictionary batches the selected fields use are read and
    /// decompressed once, at the first batch read, and kept in memory for every later one; as in Arrow C++, every batch
    /// sees each dictionary with all its deltas applied in the footer's order. Each read verifies the batch's message
    /// whole. ZSTD bodies are decompressed by the codec factory given to the constructor. Malformed input is an
    /// <see cref="InvalidDataException"/> whose inner <see cref="Lz4FrameException"/> has the byte offset in the file;
    /// a ZSTD body with no codec factory given, or a schema Arrow .NET cannot read, is a
    /// <see cref="NotSupportedException"/>. An instance is not safe for concurrent use.
    /// </remarks>
    public sealed class Lz4ArrowFileReader : IDisposable
    {

        private static readonly byte[] s_end = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };

        private readonly IpcFileSource _file;
        private readonly IpcFileFooter _footer;
        private readonly Lz4FastOptions _options;
        private readonly MemoryAllocator _allocator;
        private readonly ICompressionCodecFactory? _codecs;
        private readonly Schema _schema;
        private byte[]? _dictionaries;
        private bool _dictionariesPassThrough;
        private IpcSpliceStream.Piece[]? _unused;
        private bool _disposed;

        /// <summary>Opens the IPC file at <paramref name="path"/>, read at positions on its handle, with the default options.</summary>
        /// <param name="path">The file.</param>
        /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(string path)
            : this(path, null, null)
        {
        }

        /// <summary>Opens the IPC file at <paramref name="path"/>, read at positions on its handle.</summary>
        /// <param name="path">The file.</param>
        /// <param name="options">The projection, parallelism and checks (<see cref="Lz4FastOptions.Projection"/>, <see cref="Lz4FastOptions.MaxDegreeOfParallelism"/>, <see cref="Lz4FastOptions.VerifyOffsets"/>); copied now; <see langword="null"/> for the defaults.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed, or the projection names a field the schema lacks.</exception>
        public Lz4ArrowFileReader(string path, Lz4FastOptions? options, MemoryAllocator? allocator)
            : this(path, options, allocator, null)
        {
        }

        /// <summary>Opens the IPC file at <paramref name="path"/>, read at positions on its handle, with a codec factory for ZSTD bodies.</summary>
        /// <param name="path">The file.</param>
        /// <param name="options">As for the path constructor.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="compressionCodecFactory">Decompresses bodies compressed otherwise than with LZ4_FRAME (ZSTD), e.g. <c>new Apache.Arrow.Compression.CompressionCodecFactory()</c>; LZ4_FRAME bodies are decoded by the reader whatever it serves. <see langword="null"/>: a ZSTD body is a <see cref="NotSupportedException"/>.</param>
        /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed, or the projection names a field the schema lacks.</exception>
        public Lz4ArrowFileReader(string path, Lz4FastOptions? options, MemoryAllocator? allocator, ICompressionCodecFactory? compressionCodecFactory)
            : this(IpcFileSource.Open(path ?? throw new ArgumentNullException(nameof(path))), options, allocator, compressionCodecFactory)
        {
        }

        /// <summary>Opens the IPC file <paramref name="file"/> holds, with the default options, and disposes it with the reader.</summary>
        /// <param name="file">The file, readable and seekable (a <see cref="FileStream"/> is read at positions on its handle).</param>
        /// <exception cref="ArgumentNullException"><paramref name="file"/> is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentException"><paramref name="file"/> cannot be read or cannot seek.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(Stream file)
            : this(file, null, null, leaveOpen: false)
        {
        }

        /// <summary>Opens the IPC file <paramref name="file"/> holds; it must be readable and seekable.</summary>
        /// <param name="file">The file (a <see cref="FileStream"/> is read at positions on its handle).</param>
        /// <param name="options">As for the path constructor.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="leaveOpen"><see langword="true"/> to leave <paramref name="file"/> open when the reader is disposed.</param>
        /// <exception cref="ArgumentNullException"><paramref name="file"/> is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentException"><paramref name="file"/> cannot be read or cannot seek.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(Stream file, Lz4FastOptions? options, MemoryAllocator? allocator, bool leaveOpen)
            : this(file, options, allocator, leaveOpen, null)
        {
        }

        /// <summary>Opens the IPC file <paramref name="file"/> holds, with a codec factory for ZSTD bodies; it must be readable and seekable.</summary>
        /// <param name="file">The file (a <see cref="FileStream"/> is read at positions on its handle).</param>
        /// <param name="options">As for the path constructor.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="leaveOpen"><see langword="true"/> to leave <paramref name="file"/> open when the reader is disposed.</param>
        /// <param name="compressionCodecFactory">As for the path constructor.</param>
        /// <exception cref="ArgumentNullException"><paramref name="file"/> is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentException"><paramref name="file"/> cannot be read or cannot seek.</exception>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(Stream file, Lz4FastOptions? options, MemoryAllocator? allocator, bool leaveOpen, ICompressionCodecFactory? compressionCodecFactory)
            : this(IpcFileSource.Over(file ?? throw new ArgumentNullException(nameof(file)), leaveOpen), options, allocator, compressionCodecFactory)
        {
        }

        /// <summary>Opens the IPC file held in memory (a file's bytes, a memory-mapped region), with the default options; it must not change while the reader is used.</summary>
        /// <param name="file">The file's bytes.</param>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(ReadOnlyMemory<byte> file)
            : this(file, null, null)
        {
        }

        /// <summary>Opens the IPC file held in memory (a file's bytes, a memory-mapped region); it must not change while the reader is used.</summary>
        /// <param name="file">The file's bytes.</param>
        /// <param name="options">As for the path constructor.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(ReadOnlyMemory<byte> file, Lz4FastOptions? options, MemoryAllocator? allocator)
            : this(file, options, allocator, null)
        {
        }

        /// <summary>Opens the IPC file held in memory, with a codec factory for ZSTD bodies; it must not change while the reader is used.</summary>
        /// <param name="file">The file's bytes.</param>
        /// <param name="options">As for the path constructor.</param>
        /// <param name="allocator">Where batch buffers are allocated; <see langword="null"/> for <see cref="SlabMemoryAllocator.Shared"/>.</param>
        /// <param name="compressionCodecFactory">As for the path constructor.</param>
        /// <exception cref="InvalidDataException">The footer or the schema is malformed.</exception>
        public Lz4ArrowFileReader(ReadOnlyMemory<byte> file, Lz4FastOptions? options, MemoryAllocator? allocator, ICompressionCodecFactory? compressionCodecFactory)
            : this(IpcFileSource.Over(file), options, allocator, compressionCodecFactory)
        {
        }

        private Lz4ArrowFileReader(IpcFileSource file, Lz4FastOptions? options, MemoryAllocator? allocator, ICompressionCodecFactory? compressionCodecFactory)
        {
            _file = file;
            try
            {
                _options = options?.Clone() ?? new Lz4FastOptions();
                _allocator = allocator ?? SlabMemoryAllocator.Shared;
                _codecs = compressionCodecFactory;
                _footer = IpcFileFooter.Read(file);
                _schema = ReadSchema();
            }
            catch
            {
                file.Dispose();
                throw;
            }
        }

        /// <summary>The schema: of the selected fields only, in schema order, when <see cref="Lz4FastOptions.Projection"/> is set.</summary>
        public Schema Schema => _schema;

        /// <summary>How many record batches the file's footer lists.</summary>
        public int RecordBatchCount => _footer.RecordBatches.Length;

        /// <summary>Reads record batch <paramref name="index"/> of the file.</summary>
        /// <param name="index">The batch, 0 to <see cref="RecordBatchCount"/> - 1, in the footer's order.</param>
        /// <returns>The batch, of the selected fields only; dispose it when done.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is negative or not less than <see cref="RecordBatchCount"/>.</exception>
        /// <exception cref="InvalidDataException">The batch, a dictionary it uses or an LZ4 frame in them is malformed; the inner <see cref="Lz4FrameException"/> has the offset in the file.</exception>
        /// <exception cref="NotSupportedException">A ZSTD body and no codec factory given, or a frame compressed against a dictionary.</exception>
        public RecordBatch ReadRecordBatch(int index)
        {
            IpcFileBlock block = Block(index);
            if (_dictionaries is null)
                ReadDictionaries(async: false, default).GetAwaiter().GetResult();
            byte[] metadata = ArrayPool<byte>.Shared.Rent(block.MetadataLength);
            IpcSpliceStream? splice = null;
            bool passesThrough = false;
            RecordBatch? batch;
            try
            {
                int got = _file.ReadAt(block.Offset, metadata.AsSpan(0, block.MetadataLength));
                IpcMessage message = IpcFileFooter.CheckMessage(metadata, got, block, IpcMessageParser.HeaderRecordBatch, out FlatReader flat);
                passesThrough = CheckCodec(CompressedOtherwise(message), block, $"record batch {index}") || _dictionariesPassThrough;
                splice = BatchStream(block, metadata);
                using var reader = Reader(splice);
                batch = reader.ReadNextRecordBatch();
            }
            catch (InvalidDataException e) when (InFile(e, splice, index, block.Offset) is { } located)
            {
                throw located;
            }
            catch (Exception e) when (splice is not null && (IsArrowsOwnFailure(e) || (passesThrough && IsCodecFailure(e))))
            {
                throw IpcErrors.At(block.Offset, $"record batch {index} of the IPC file: Arrow's reader failed on the message ({e.GetType().Name}: {e.Message})", e);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(metadata);
            }
            // The message was checked to be a record batch: the stream path serves it or throws.
            return batch ?? throw IpcErrors.At(block.Offset, $"{block.Name}: no record batch was read");
        }

        /// <summary>Reads record batch <paramref name="index"/> of the file asynchronously.</summary>
        /// <param name="index">The batch, 0 to <see cref="RecordBatchCount"/> - 1, in the footer's order.</param>
        /// <param name="cancellationToken">Cancels the read.</param>
        /// <returns>The batch, of the selected fields only; dispose it when done.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is negative or not less than <see cref="RecordBatchCount"/>.</exception>
        /// <exception cref="InvalidDataException">The batch, a dictionary it uses or an LZ4 frame in them is malformed.</exception>
        /// <exception cref="NotSupportedException">A ZSTD body and no codec factory given, or a frame compressed against a dictionary.</exception>
        public async ValueTask<RecordBatch> ReadRecordBatchAsync(int index, CancellationToken cancellationToken = default)
        {
            IpcFileBlock block = Block(index);
            if (_dictionaries is null)
                await ReadDictionaries(async: true, cancellationToken).ConfigureAwait(false);
            byte[] metadata = ArrayPool<byte>.Shared.Rent(block.MetadataLength);
            IpcSpliceStream? splice = null;
            bool passesThrough = false;
            RecordBatch? batch;
            try
            {
                int got = await _file.ReadAtAsync(block.Offset, metadata.AsMemory(0, block.MetadataLength), cancellationToken).ConfigureAwait(false);
                IpcMessage message = IpcFileFooter.CheckMessage(metadata, got, block, IpcMessageParser.HeaderRecordBatch, out FlatReader flat);
                passesThrough = CheckCodec(CompressedOtherwise(message), block, $"record batch {index}") || _dictionariesPassThrough;
                splice = BatchStream(block, metadata);
                using var reader = Reader(splice);
                batch = await reader.ReadNextRecordBatchAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (InvalidDataException e) when (InFile(e, splice, index, block.Offset) is { } located)
            {
                throw located;
            }
            catch (Exception e) when (splice is not null && (IsArrowsOwnFailure(e) || (passesThrough && IsCodecFailure(e))))
            {
                throw IpcErrors.At(block.Offset, $"record batch {index} of the IPC file: Arrow's reader failed on the message ({e.GetType().Name}: {e.Message})", e);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(metadata);
            }
            // The message was checked to be a record batch: the stream path serves it or throws.
            return batch ?? throw IpcErrors.At(block.Offset, $"{block.Name}: no record batch was read");
        }

        /// <summary>Closes the file (unless it was left open).</summary>
        public void Dispose()
        {
            if (_disposed)
                return;
            _disposed = true;
            _file.Dispose();
        }

        private IpcFileBlock Block(int index)
        {
            if (_disposed)
                throw new ObjectDisposedException(nameof(Lz4ArrowFileReader));
            if ((uint)index >= (uint)_footer.RecordBatches.Length)
                throw new ArgumentOutOfRangeException(nameof(index), index, $"The file has {_footer.RecordBatches.Length} record batch(es).");
            return _footer.RecordBatches[index];
        }

        /// <summary>The schema as Arrow reads it from the footer's, through the stream path (verified, projected).</summary>
        private Schema ReadSchema()
        {
            var pieces = new[] { SchemaPiece(), End(_footer.Offset) };
            var splice = new IpcSpliceStream(_file, pieces, pieces.Length);
            try
            {
                using var reader = Reader(splice);
                return reader.Schema;
            }
            catch (InvalidDataException e) when (InFile(e, splice, -1, _footer.Offset) is { } located)
            {
                throw located;
            }
            catch (Exception e) when (IsArrowsOwnFailure(e))
            {
                throw IpcErrors.At(_footer.Offset, $"the IPC file's schema: Arrow's reader failed on it ({e.GetType().Name}: {e.Message})", e);
            }
        }

        /// <summary>
        /// What Arrow's reader throws on metadata it does not check that the stream path passes on unchanged (a
        /// record batch passing through uncompressed whose buffer vector is short: a NullReferenceException; a delta
        /// dictionary whose null count has no validity buffer, which Arrow concatenates with a bare Exception). The
        /// file's own failures (IOException) and cancellation pass as they are.
        /// </summary>
        private static bool IsArrowsOwnFailure(Exception e) =>
            e is NullReferenceException or IndexOutOfRangeException or ArgumentException or OverflowException or InvalidCastException
            || (e is InvalidOperationException && e is not ObjectDisposedException)
            || e.GetType() == typeof(Exception);

        /// <summary>
        /// What a codec factory throws on a body it cannot decompress (ZstdSharp's ZstdException, say): any exception but
        /// the file's own failures, cancellation and the contract's own types.
        /// </summary>
        private static bool IsCodecFailure(Exception e) =>
            e is not (IOException or OperationCanceledException or ObjectDisposedException or NotSupportedException or InvalidDataException or OutOfMemoryException);

        /// <summary>
        /// Whether the message is ZSTD-compressed (so passes through the stream path for the codec factory): a compressed
        /// body that is not LZ4_FRAME, since Parse refuses a codec or method the format does not define.
        /// </summary>
        private static bool CompressedOtherwise(in IpcMessage message) => message.Compressed && !message.Lz4;

        /// <summary>
        /// Whether the body of the message in <paramref name="block"/> passes through the stream path compressed
        /// (<paramref name="compressedOtherwise"/>: ZSTD), for the codec factory to decompress; refused when none was given.
        /// </summary>
        private bool CheckCodec(bool compressedOtherwise, in IpcFileBlock block, string what)
        {
            if (!compressedOtherwise)
                return false;
            if (_codecs is null)
            {
                throw new NotSupportedException(
                    $"The {what} of the IPC file (its message at byte offset {block.Offset}) has a ZSTD-compressed body. Lz4ArrowFileReader "
                    + "decodes LZ4_FRAME bodies itself and others with the codec factory given to its constructor (compressionCodecFactory), "
                    + "e.g. new Apache.Arrow.Compression.CompressionCodecFactory(); none was given.");
            }
            return true;
        }

        /// <summary>
        /// Reads the dictionary batches the selected fields use through the stream path once, and keeps them
        /// decompressed: the messages between the schema and the end-of-stream marker of what the stream served. The
        /// others (which the projection drops) keep only their metadata: every batch's stream still shows them to the
        /// stream path, which checks that each dictionary the schema names comes before a batch, and seeks past their
        /// bodies in the file without reading them.
        /// </summary>
        private async Task ReadDictionaries(bool async, CancellationToken cancellationToken)
        {
            IpcFileBlock[] blocks = _footer.Dictionaries;
            if (blocks.Length == 0)
            {
                _unused = System.Array.Empty<IpcSpliceStream.Piece>();
                _dictionaries = System.Array.Empty<byte>();
                return;
            }
            var pieces = new IpcSpliceStream.Piece[2 + (2 * blocks.Length)];
            var ids = new long[blocks.Length];
            var compressedOtherwise = new bool[blocks.Length];
            pieces[0] = SchemaPiece();
            var seen = new HashSet<long>();
            for (int i = 0; i < blocks.Length; i++)
            {
                IpcFileBlock block = blocks[i];
                byte[] metadata = new byte[block.MetadataLength];
                int got = async
                    ? await _file.ReadAtAsync(block.Offset, metadata, cancellationToken).ConfigureAwait(false)
                    : _file.ReadAt(block.Offset, metadata);
                IpcMessage message = IpcFileFooter.CheckMessage(metadata, got, block, IpcMessageParser.HeaderDictionaryBatch, out FlatReader reader);
                // The file format allows deltas, applied in the footer's order (the stream path refuses one before its
                // dictionary), but no second dictionary of an id.
                bool delta = reader.UInt8(message.Dictionary, IpcMessageParser.DictionaryBatchIsDelta, 0, "DictionaryBatch.isDelta") != 0;
                if (!seen.Add(message.DictionaryId) && !delta)
                    IpcErrors.Throw(block.Offset, $"{block.Name} replaces dictionary id {message.DictionaryId}, which the file format does not allow (only deltas)");
                ids[i] = message.DictionaryId;
                compressedOtherwise[i] = CompressedOtherwise(message);
                pieces[1 + (2 * i)] = IpcSpliceStream.Piece.Memory(metadata, block.Offset, 0, block.MetadataLength);
                pieces[2 + (2 * i)] = IpcSpliceStream.Piece.File(block.Body, block.BodyLength);
            }
            pieces[pieces.Length - 1] = End(_footer.Offset);
            var splice = new IpcSpliceStream(_file, pieces, pieces.Length);
            using var output = new MemoryStream();
            try
            {
                using var stream = new IpcDecompressingStream(splice, _options, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: false);
                if (async)
                    await stream.CopyToAsync(output, 1 << 20, cancellationToken).ConfigureAwait(false);
                else
                    stream.CopyTo(output, 1 << 20);
            }
            catch (InvalidDataException e) when (InFile(e, splice, -1, _footer.Offset) is { } located)
            {
                throw located;
            }
            // What the stream served, all verified: the schema message (continuation, length, metadata; no body), the
            // dictionary messages it kept, the end-of-stream marker.
            byte[] served = output.GetBuffer();
            int start = 8 + BitConverter.ToInt32(served, 4);
            int end = (int)output.Length - s_end.Length;
            var kept = new HashSet<long>();
            for (int at = start; at < end;)
            {
                int length = BitConverter.ToInt32(served, at + 4);
                IpcMessage message = IpcMessageParser.Parse(new FlatReader(served, at + 8, length, 0));
                kept.Add(message.DictionaryId);
                at += 8 + length + (int)message.BodyLength;
            }
            var unused = new List<IpcSpliceStream.Piece>();
            for (int i = 0; i < blocks.Length; i++)
            {
                if (kept.Contains(ids[i]) && compressedOtherwise[i])
                    _dictionariesPassThrough = CheckCodec(true, blocks[i], $"dictionary batch of id {ids[i]} ({blocks[i].Name})");
                if (!kept.Contains(ids[i]))
                {
                    unused.Add(pieces[1 + (2 * i)]);
                    unused.Add(pieces[2 + (2 * i)]);
                }
            }
            _unused = unused.ToArray();
            _dictionaries = served.AsSpan(start, end - start).ToArray();
        }

        /// <summary>
        /// The stream of batch <paramref name="block"/>: the schema, the kept dictionaries, the others' metadata, the
        /// batch's metadata (read already), its body in the file, the end.
        /// </summary>
        private IpcSpliceStream BatchStream(in IpcFileBlock block, byte[] metadata)
        {
            long firstDictionary = _footer.Dictionaries.Length > 0 ? _footer.Dictionaries[0].Offset : _footer.Offset;
            var pieces = new IpcSpliceStream.Piece[5 + _unused!.Length];
            pieces[0] = SchemaPiece();
            pieces[1] = IpcSpliceStream.Piece.Memory(_dictionaries, firstDictionary);
            _unused.CopyTo(pieces, 2);
            pieces[2 + _unused.Length] = IpcSpliceStream.Piece.Memory(metadata.AsMemory(0, block.MetadataLength), block.Offset, 0, block.MetadataLength);
            pieces[3 + _unused.Length] = IpcSpliceStream.Piece.File(block.Body, block.BodyLength);
            pieces[4 + _unused.Length] = End(block.End);
            return new IpcSpliceStream(_file, pieces, pieces.Length);
        }

        private IpcSpliceStream.Piece SchemaPiece() =>
            IpcSpliceStream.Piece.Memory(_footer.SchemaMessage, _footer.Offset, IpcFileFooter.SchemaSkew, _footer.Length);

        private static IpcSpliceStream.Piece End(long fileOffset) => IpcSpliceStream.Piece.Memory(s_end, fileOffset);

        private ArrowStreamReader Reader(IpcSpliceStream splice)
        {
            var stream = new IpcDecompressingStream(splice, _options, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: false);
            // Bodies that pass through compressed (ZSTD) meet the given factory; LZ4 ones are decompressed already.
            return new ArrowStreamReader(stream, _allocator, new Lz4FastCodecFactory(_options, _codecs), leaveOpen: false);
        }

        /// <summary>
        /// <paramref name="e"/>, a defect the stream path found in the spliced stream, at its offset in the file and
        /// naming the batch (<paramref name="index"/>, or -1 for the schema and dictionaries). Arrow's reader refuses some
        /// values itself (a field node's length past an int) with an InvalidDataException of its own: it is given the
        /// offset <paramref name="message"/> of the message read. Null before the stream is made: the error is the file's already.
        /// </summary>
        private static InvalidDataException? InFile(InvalidDataException e, IpcSpliceStream? splice, int index, long message)
        {
            if (splice is null)
                return null;
            string where = index < 0 ? "the IPC file" : $"record batch {index} of the IPC file";
            if (e.InnerException is not Lz4FrameException frame)
                return IpcErrors.At(message, $"{where}: Arrow's reader refused the message: {e.Message}", e);
            // The stream path names the buffer and field it found; its message and batch numbers are the spliced stream's.
            string field = OwnError.Of(e) is { Buffer.Length: > 0 } own ? ": " + own.Buffer : string.Empty;
            return IpcErrors.At(frame.Kind, splice.FileOffsetOf(frame.Offset), $"{where}: {frame.Detail}{field}", frame.InnerException);
        }
    }
}
