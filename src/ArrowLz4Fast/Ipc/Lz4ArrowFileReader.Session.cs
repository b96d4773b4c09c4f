using System;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The stream path the reader keeps open: a spliced stream of the file's messages, the stream path over it and
    /// Arrow's stream reader over that. It is given the schema once, the dictionaries once, then each batch's message
    /// as it is read, so neither the schema nor the dictionaries are read, verified or built again. A failure drops it;
    /// the next read opens another.
    /// </summary>
    public sealed partial class Lz4ArrowFileReader
    {
        private IpcSpliceStream? _splice;
        private IpcDecompressingStream? _stream;
        private ArrowStreamReader? _reader;

        // Whether the open stream path was given the dictionaries.
        private bool _fed;

        // The pieces given to the stream path at a read, kept from read to read (the splice keeps the array it is given).
        private IpcSpliceStream.Piece[] _pieces = System.Array.Empty<IpcSpliceStream.Piece>();

        /// <summary>The schema as Arrow reads it from the footer's, through the stream path (verified, projected); the stream path stays open.</summary>
        private Schema ReadSchema()
        {
            var pieces = new[] { SchemaPiece() };
            Open(pieces, pieces.Length);
            try
            {
                return _reader!.Schema;
            }
            catch (InvalidDataException e)
            {
                throw InFile(e, _splice!, -1, _footer.Offset, long.MaxValue);
            }
            catch (Exception e) when (IsArrowsOwnFailure(e))
            {
                throw IpcErrors.At(_footer.Offset, $"the IPC file's schema: Arrow's reader failed on it ({e.GetType().Name}: {e.Message})", e);
            }
        }

        private void Open(IpcSpliceStream.Piece[] pieces, int count)
        {
            _splice = new IpcSpliceStream(_file, pieces, count);
            _stream = new IpcDecompressingStream(_splice, _options, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: false);
            // Bodies that pass through compressed (ZSTD) meet the given factory; LZ4 ones are decompressed already.
            _reader = new ArrowStreamReader(_stream, _allocator, new Lz4FastCodecFactory(_options, _codecs), leaveOpen: false);
            _fed = false;
        }

        /// <summary>Drops the open stream path (after a failure, or when the batches must not share its dictionaries).</summary>
        private void EndSession()
        {
            ArrowStreamReader? reader = _reader;
            _reader = null;
            _stream = null;
            _splice = null;
            _fed = false;
            reader?.Dispose();
        }

        /// <summary>
        /// Gives the stream path the batch's message next: its metadata (read and verified already, as
        /// <paramref name="message"/> in the flatbuffer <paramref name="verified"/> read: the stream path does not
        /// walk it again) and its body in the file; before
        /// them the schema, for a stream path opened now, and the dictionaries, for one not given them yet. Returns
        /// where the batch's message starts in the spliced stream.
        /// </summary>
        private long Feed(in IpcFileBlock block, byte[] metadata, in IpcMessage message, in FlatReader verified)
        {
            // A stream path left short of its end (a read abandoned before the stream path ran) is not continued.
            if (_reader is not null && _splice!.Position != _splice.Length)
                EndSession();
            bool open = _reader is not null;
            int most = 3 + _dictionaryPieces!.Length + (_unused?.Length ?? 0);
            if (_pieces.Length < most)
                _pieces = new IpcSpliceStream.Piece[most];
            IpcSpliceStream.Piece[] pieces = _pieces;
            int count = 0;
            if (!open)
                pieces[count++] = SchemaPiece();
            if (!_fed)
                count = AddDictionaries(pieces, count);
            int batch = count;
            pieces[count++] = IpcSpliceStream.Piece.Verified(metadata.AsMemory(0, block.MetadataLength), block.Offset, verified, message);
            pieces[count++] = IpcSpliceStream.Piece.File(block.Body, block.BodyLength);
            if (open)
                _splice!.Continue(pieces, count);
            else
                Open(pieces, count);
            _fed = true;
            return pieces[batch].Start;
        }

        private IpcSpliceStream.Piece SchemaPiece() =>
            IpcSpliceStream.Piece.Memory(_footer.SchemaMessage, _footer.Offset, IpcFileFooter.SchemaSkew, _footer.Length);

        /// <summary>
        /// <paramref name="e"/>, thrown by the stream path or Arrow's reader as they read batch <paramref name="index"/>
        /// (whose message starts at <paramref name="start"/> of the spliced stream), located in the file; null for what
        /// passes as it is (the file's own failures, cancellation, a refused codec).
        /// </summary>
        private InvalidDataException? Located(Exception e, int index, in IpcFileBlock block, long start, bool passesThrough)
        {
            if (e is InvalidDataException invalid)
                return InFile(invalid, _splice!, index, block.Offset, start);
            if (IsArrowsOwnFailure(e) || (passesThrough && IsCodecFailure(e)))
                return IpcErrors.At(block.Offset, $"record batch {index} of the IPC file: Arrow's reader failed on the message ({e.GetType().Name}: {e.Message})", e);
            return null;
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
        /// <paramref name="e"/>, a defect the stream path found in the spliced stream, at its offset in the file and
        /// naming the batch (<paramref name="index"/>; the file as a whole for the schema and dictionaries, index -1 or
        /// a defect before <paramref name="start"/>, where the batch's message begins). Arrow's reader refuses some
        /// values itself (a field node's length past an int) with an InvalidDataException of its own: it is given the
        /// offset <paramref name="message"/> of the message read.
        /// </summary>
        private static InvalidDataException InFile(InvalidDataException e, IpcSpliceStream splice, int index, long message, long start)
        {
            string where = index < 0 ? "the IPC file" : $"record batch {index} of the IPC file";
            if (e.InnerException is not Lz4FrameException frame)
                return IpcErrors.At(message, $"{where}: Arrow's reader refused the message: {e.Message}", e);
            if (frame.Offset < start)
                where = "the IPC file";
            // The stream path names the buffer and field it found; its message and batch numbers are the spliced stream's.
            string field = OwnError.Of(e) is { Buffer.Length: > 0 } own ? ": " + own.Buffer : string.Empty;
            return IpcErrors.At(frame.Kind, splice.FileOffsetOf(frame.Offset), $"{where}: {frame.Detail}{field}", frame.InnerException);
        }
    }
}
