using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The dictionary batches: their messages are read and checked against the footer once, at the first batch read.
    /// Arrow's reader keeps the dictionaries it builds and hands them to every batch it reads; disposing a batch disposes
    /// its dictionaries' buffers, which frees those Arrow allocated itself (a delta concatenated, a ZSTD body
    /// decompressed). So the open stream path is given the dictionaries once and kept only when the selected fields
    /// use no delta and no ZSTD dictionary; otherwise the dictionaries are decompressed once into memory and each read
    /// gives a new stream path them from there.
    /// </summary>
    public sealed partial class Lz4ArrowFileReader
    {
        private static readonly byte[] s_end = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };

        // Every dictionary message as the file holds it: its metadata in memory, then its body in the file. Written
        // last, with the fields below written before it: a read that sees it set sees them too.
        private IpcSpliceStream.Piece[]? _dictionaryPieces;

        // Lets one of the first reads, if several race, prepare the dictionaries; async reads wait on it without a thread.
        private readonly SemaphoreSlim _preparing = new SemaphoreSlim(1, 1);

        // Whether the batches may share the dictionaries of the open stream path.
        private bool _shared = true;

        // When they may not: the selected dictionaries as the stream path served them, the others' pieces (which the
        // stream path drops), and whether one of them passes through compressed.
        private byte[]? _dictionaries;
        private IpcSpliceStream.Piece[]? _unused;
        private bool _dictionariesPassThrough;

        /// <summary>Prepares the dictionaries unless another read did while this one waited.</summary>
        private void PrepareDictionariesOnce()
        {
            _preparing.Wait();
            try
            {
                if (Volatile.Read(ref _dictionaryPieces) is null)
                    PrepareDictionaries(async: false, default).GetAwaiter().GetResult();
            }
            finally
            {
                _preparing.Release();
            }
        }

        /// <summary>Prepares the dictionaries unless another read did while this one waited, asynchronously.</summary>
        private async Task PrepareDictionariesOnceAsync(CancellationToken cancellationToken)
        {
            await _preparing.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                if (Volatile.Read(ref _dictionaryPieces) is null)
                    await PrepareDictionaries(async: true, cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                _preparing.Release();
            }
        }

        /// <summary>
        /// Reads and checks each dictionary block's metadata, decides whether the batches may share the dictionaries
        /// and, if not, decompresses the selected ones into memory.
        /// </summary>
        private async Task PrepareDictionaries(bool async, CancellationToken cancellationToken)
        {
            IpcFileBlock[] blocks = _footer.Dictionaries;
            var pieces = new IpcSpliceStream.Piece[2 * blocks.Length];
            var seen = new HashSet<long>();
            var selected = new bool[blocks.Length];
            bool shared = true;
            bool passThrough = false;
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
                selected[i] = Selected(message.DictionaryId);
                if (selected[i])
                {
                    bool compressedOtherwise = CheckCodec(CompressedOtherwise(message), block, -1, message.DictionaryId);
                    passThrough |= compressedOtherwise;
                    shared &= !delta && !compressedOtherwise;
                }
                // The array is this read's own and never written again: the stream path need not verify it again.
                pieces[2 * i] = IpcSpliceStream.Piece.Verified(metadata, block.Offset, reader, message);
                pieces[(2 * i) + 1] = IpcSpliceStream.Piece.File(block.Body, block.BodyLength);
            }
            if (!shared)
                await CacheDictionaries(pieces, selected, async, cancellationToken).ConfigureAwait(false);
            _shared = shared;
            _dictionariesPassThrough = passThrough;
            Volatile.Write(ref _dictionaryPieces, pieces);
        }

        /// <summary>Whether the stream path keeps dictionary batches of <paramref name="id"/>: those the selected fields use.</summary>
        private bool Selected(long id) => _plan is null || _plan.IsAll || _plan.Uses(id);

        /// <summary>
        /// Reads the dictionary batches (<paramref name="selected"/>: which the selected fields use) through a stream path of their own once, and keeps the selected ones
        /// decompressed: the messages between the schema and the end-of-stream marker of what it served. The others
        /// keep only their pieces: every read's stream still shows them to the stream path, which checks that each
        /// dictionary the schema names comes before a batch, and seeks past their bodies without reading them.
        /// </summary>
        private async Task CacheDictionaries(IpcSpliceStream.Piece[] dictionaries, bool[] selected, bool async, CancellationToken cancellationToken)
        {
            var pieces = new IpcSpliceStream.Piece[2 + dictionaries.Length];
            pieces[0] = SchemaPiece();
            dictionaries.CopyTo(pieces, 1);
            pieces[pieces.Length - 1] = IpcSpliceStream.Piece.Memory(s_end, _footer.Offset);
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
            catch (InvalidDataException e)
            {
                throw InFile(e, splice, -1, _footer.Offset, long.MaxValue);
            }
            catch (NotSupportedException e) when (NotSupportedInFile(e, splice) is { } located)
            {
                throw located;
            }
            // What the stream served, all verified: the schema message (continuation, length, metadata; no body), the
            // dictionary messages it kept, the end-of-stream marker.
            byte[] served = output.GetBuffer();
            int start = 8 + BitConverter.ToInt32(served, 4);
            int end = (int)output.Length - s_end.Length;
            var unused = new List<IpcSpliceStream.Piece>();
            for (int i = 0; i < selected.Length; i++)
            {
                if (!selected[i])
                {
                    unused.Add(dictionaries[2 * i]);
                    unused.Add(dictionaries[(2 * i) + 1]);
                }
            }
            _unused = unused.ToArray();
            _dictionaries = served.AsSpan(start, end - start).ToArray();
        }

        /// <summary>
        /// Whether the message is ZSTD-compressed (so passes through the stream path for the codec factory): a compressed
        /// body that is not LZ4_FRAME, since Parse refuses a codec or method the format does not define.
        /// </summary>
        private static bool CompressedOtherwise(in IpcMessage message) => message.Compressed && !message.Lz4;

        /// <summary>
        /// Whether the body of the message in <paramref name="block"/> passes through the stream path compressed
        /// (<paramref name="compressedOtherwise"/>: ZSTD), for the codec factory to decompress; refused when none was
        /// given. The message is record batch <paramref name="batch"/>, or (-1) the dictionary batch of <paramref name="dictionaryId"/>.
        /// </summary>
        private bool CheckCodec(bool compressedOtherwise, in IpcFileBlock block, int batch, long dictionaryId)
        {
            if (!compressedOtherwise)
                return false;
            if (_codecs is null)
            {
                string what = batch >= 0 ? $"record batch {batch}" : $"dictionary batch of id {dictionaryId} ({block.Name})";
                throw new NotSupportedException(
                    $"The {what} of the IPC file (its message at byte offset {block.Offset}) has a ZSTD-compressed body. Lz4ArrowFileReader "
                    + "decodes LZ4_FRAME bodies itself and others with the codec factory given to its constructor (compressionCodecFactory), "
                    + "e.g. new Apache.Arrow.Compression.CompressionCodecFactory(); none was given.");
            }
            return true;
        }

        /// <summary>Adds the dictionaries to the pieces of a stream path not given them yet, from <paramref name="count"/> on; returns the new count.</summary>
        private int AddDictionaries(IpcSpliceStream.Piece[] pieces, int count)
        {
            if (_shared)
            {
                _dictionaryPieces!.CopyTo(pieces, count);
                return count + _dictionaryPieces.Length;
            }
            long first = _footer.Dictionaries.Length > 0 ? _footer.Dictionaries[0].Offset : _footer.Offset;
            pieces[count++] = IpcSpliceStream.Piece.Memory(_dictionaries, first);
            _unused!.CopyTo(pieces, count);
            return count + _unused.Length;
        }
    }
}
