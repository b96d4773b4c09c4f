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
    /// Opening reads and checks the footer and the schema, and keeps a stream path and an Arrow stream reader open on
    /// them for later reads. The dictionary batches the selected fields use are read and checked once, at the first
    /// batch read, and given once to each such reader; each read then gives it only the batch's message. As in Arrow C++,
    /// every batch sees each dictionary with all its deltas applied in the footer's order; the batches share those
    /// dictionaries only when disposing one cannot free them (no delta and no ZSTD dictionary is selected), else each
    /// read has its own copy, made from the dictionaries kept decompressed in memory. Each read verifies the batch's
    /// message whole. ZSTD bodies are decompressed by the codec factory given to the constructor. Malformed input is an
    /// <see cref="InvalidDataException"/> whose inner <see cref="Lz4FrameException"/> has the byte offset in the file;
    /// a ZSTD body with no codec factory given, or a schema Arrow .NET cannot read, is a
    /// <see cref="NotSupportedException"/>. A read that fails (malformed data, an I/O error, cancellation) leaves the
    /// reader usable: the stream path it failed in is dropped, and the next read starts a new one from the schema and
    /// dictionaries, so it gives its batch, or its own error, as a fresh reader would. Unlike <c>ArrowFileReader</c>,
    /// <see cref="ReadRecordBatch"/> and <see cref="ReadRecordBatchAsync"/> may be called on several threads at once:
    /// each read takes a stream path of its own (an idle one kept from an earlier read, or a new one, which reads the
    /// schema and dictionaries again from memory and the file), a failure drops its own read's only, and a read alone
    /// reuses the same one every time. <see cref="Dispose"/> must not run while reads do.
    /// </remarks>
    public sealed partial class Lz4ArrowFileReader : IDisposable
    {
        private readonly IpcFileSource _file;
        private readonly IpcFileFooter _footer;
        private readonly Lz4FastOptions _options;
        private readonly MemoryAllocator _allocator;
        private readonly ICompressionCodecFactory? _codecs;
        private readonly Schema _schema;
        private readonly IpcProjectionPlan? _plan;

        // Set once by Dispose; read by every read and by a session given back (1: disposed).
        private int _disposed;

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
            var session = new IpcFileReadSession();
            try
            {
                _options = options?.Clone() ?? new Lz4FastOptions();
                _allocator = allocator ?? SlabMemoryAllocator.Shared;
                _codecs = compressionCodecFactory;
                _footer = IpcFileFooter.Read(file);
                _schema = ReadSchema(session);
                _plan = session.Stream!.Plan;
            }
            catch (Exception e)
            {
                session.Dispose();
                file.Dispose();
                if (IpcErrors.InFile(e) is { } inFile)
                    throw inFile;
                throw;
            }
            // The first read goes on from the schema read now.
            _idle[0] = session;
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
            try
            {
                IpcFileBlock block = Block(index);
                if (Volatile.Read(ref _dictionaryPieces) is null)
                    PrepareDictionariesOnce();
                IpcFileReadSession session = Take();
                try
                {
                    byte[] metadata = session.Metadata(block.MetadataLength);
                    int got = _file.ReadAt(block.Offset, metadata.AsSpan(0, block.MetadataLength));
                    long start = CheckAndFeed(session, block, index, metadata, got, out bool passesThrough);
                    RecordBatch? batch;
                    try
                    {
                        batch = session.Reader!.ReadNextRecordBatch();
                    }
                    catch (Exception e)
                    {
                        if (Failed(session, e, index, block, start, passesThrough) is { } located)
                            throw located;
                        throw;
                    }
                    return Served(session, batch, block);
                }
                finally
                {
                    GiveBack(session);
                }
            }
            catch (Exception e) when (IpcErrors.InFile(e) is { } inFile)
            {
                throw inFile;
            }
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
            try
            {
                IpcFileBlock block = Block(index);
                if (Volatile.Read(ref _dictionaryPieces) is null)
                    await PrepareDictionariesOnceAsync(cancellationToken).ConfigureAwait(false);
                IpcFileReadSession session = Take();
                try
                {
                    byte[] metadata = session.Metadata(block.MetadataLength);
                    int got = await _file.ReadAtAsync(block.Offset, metadata.AsMemory(0, block.MetadataLength), cancellationToken).ConfigureAwait(false);
                    long start = CheckAndFeed(session, block, index, metadata, got, out bool passesThrough);
                    RecordBatch? batch;
                    try
                    {
                        batch = await session.Reader!.ReadNextRecordBatchAsync(cancellationToken).ConfigureAwait(false);
                    }
                    catch (Exception e)
                    {
                        if (Failed(session, e, index, block, start, passesThrough) is { } located)
                            throw located;
                        throw;
                    }
                    return Served(session, batch, block);
                }
                finally
                {
                    GiveBack(session);
                }
            }
            catch (Exception e) when (IpcErrors.InFile(e) is { } inFile)
            {
                throw inFile;
            }
        }

        /// <summary>
        /// Closes the file (unless it was left open). Batches read stay usable. Reads after it throw
        /// <see cref="ObjectDisposedException"/>; disposing while reads run is the caller's error: those reads may
        /// then fail (<see cref="ObjectDisposedException"/>, <see cref="IOException"/>), and their stream paths are
        /// disposed as they end.
        /// </summary>
        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) != 0)
                return;
            DisposeIdle();
            _file.Dispose();
        }

        private IpcFileBlock Block(int index)
        {
            if (Volatile.Read(ref _disposed) != 0)
                throw new ObjectDisposedException(nameof(Lz4ArrowFileReader));
            if ((uint)index >= (uint)_footer.RecordBatches.Length)
                throw new ArgumentOutOfRangeException(nameof(index), index, $"The file has {_footer.RecordBatches.Length} record batch(es).");
            return _footer.RecordBatches[index];
        }

        /// <summary>
        /// Verifies the batch's metadata whole and checks it against its block before the stream path sees it (a record
        /// batch, of the block's lengths), giving what the verification found and the flatbuffer it read; true when
        /// its body passes through compressed (ZSTD), or a dictionary it may use did.
        /// </summary>
        private bool CheckBatch(byte[] metadata, int got, in IpcFileBlock block, int index, out IpcMessage message, out FlatReader verified)
        {
            message = IpcFileFooter.CheckMessage(metadata, got, block, IpcMessageParser.HeaderRecordBatch, out verified);
            return CheckCodec(CompressedOtherwise(message), block, index, 0) || _dictionariesPassThrough;
        }

        /// <summary>
        /// Checks the batch's metadata (<paramref name="got"/> bytes read of it, see <see cref="CheckBatch"/>) and gives
        /// it to the stream path of <paramref name="session"/> (see <see cref="Feed"/>): where its message starts there.
        /// </summary>
        private long CheckAndFeed(IpcFileReadSession session, in IpcFileBlock block, int index, byte[] metadata, int got, out bool passesThrough)
        {
            passesThrough = CheckBatch(metadata, got, block, index, out IpcMessage message, out FlatReader verified);
            return Feed(session, block, metadata, message, verified);
        }

        /// <summary>
        /// After <paramref name="e"/> ended a batch read in <paramref name="session"/>: drops its stream path and gives
        /// the exception to throw instead, located in the file (see <see cref="Located"/>); null to rethrow <paramref name="e"/>.
        /// </summary>
        private static Exception? Failed(IpcFileReadSession session, Exception e, int index, in IpcFileBlock block, long start, bool passesThrough)
        {
            Exception? located = Located(e, session.Splice!, index, block, start, passesThrough);
            session.End();
            return located;
        }

        /// <summary>The batch the stream path of <paramref name="session"/> served; a stream path that holds its dictionaries apart from the batches' is dropped now.</summary>
        private RecordBatch Served(IpcFileReadSession session, RecordBatch? batch, in IpcFileBlock block)
        {
            // The message was checked to be a record batch: the stream path serves it whole or throws.
            if (batch is null || !_shared || !session.Continues)
                session.End();
            return batch ?? throw IpcErrors.At(block.Offset, $"{block.Name}: no record batch was read");
        }
    }
}
