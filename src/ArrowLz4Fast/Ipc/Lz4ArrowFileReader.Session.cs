using System;
using System.IO;
using System.Threading;
using Apache.Arrow;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The stream paths the reader keeps open (<see cref="IpcFileReadSession"/>): each is given the schema once, the
    /// dictionaries once, then the message of each batch read through it, so neither the schema nor the dictionaries
    /// are read, verified or built again. A read takes an idle one (or makes one) and gives it back; reads at once on
    /// several threads each take their own, and one read alone uses the same one every time. A failure drops the
    /// stream path of its own read only; the next read through that session opens another.
    /// </summary>
    public sealed partial class Lz4ArrowFileReader
    {
        // The idle sessions, taken and given back with Interlocked so a read takes no lock; slot 0 is the one a read
        // alone always finds. More sessions than this at once (more concurrent reads) are disposed when given back.
        private readonly IpcFileReadSession?[] _idle = new IpcFileReadSession?[Math.Max(1, Math.Min(Environment.ProcessorCount, 16))];

        /// <summary>The schema as Arrow reads it from the footer's, through the stream path of <paramref name="session"/> (verified, projected); the stream path stays open.</summary>
        private Schema ReadSchema(IpcFileReadSession session)
        {
            var pieces = new[] { SchemaPiece() };
            session.Open(_file, pieces, pieces.Length, _options, _allocator, _codecs);
            try
            {
                return session.Reader!.Schema;
            }
            catch (InvalidDataException e)
            {
                throw InFile(e, session.Splice!, -1, _footer.Offset, long.MaxValue);
            }
            catch (NotSupportedException e) when (NotSupportedInFile(e, session.Splice!) is { } located)
            {
                throw located;
            }
            catch (Exception e) when (IsArrowsOwnFailure(e))
            {
                throw IpcErrors.At(_footer.Offset, $"the IPC file's schema: Arrow's reader failed on it ({e.GetType().Name}: {e.Message})", e);
            }
        }

        /// <summary>An idle session, or a new one (not open) when every idle one is in use.</summary>
        private IpcFileReadSession Take()
        {
            IpcFileReadSession?[] idle = _idle;
            for (int i = 0; i < idle.Length; i++)
            {
                IpcFileReadSession? session = Interlocked.Exchange(ref idle[i], null);
                if (session is not null)
                    return session;
            }
            return new IpcFileReadSession();
        }

        /// <summary>Keeps <paramref name="session"/> for a later read, or disposes it when the reader is disposed or enough are idle.</summary>
        private void GiveBack(IpcFileReadSession session)
        {
            IpcFileReadSession?[] idle = _idle;
            for (int i = 0; i < idle.Length && Volatile.Read(ref _disposed) == 0; i++)
            {
                if (Interlocked.CompareExchange(ref idle[i], session, null) is null)
                {
                    // Dispose may have emptied the slots between the check and the store; then whichever of the two
                    // takes the session back out disposes it.
                    if (Volatile.Read(ref _disposed) != 0 && Interlocked.CompareExchange(ref idle[i], null, session) == session)
                        session.Dispose();
                    return;
                }
            }
            session.Dispose();
        }

        /// <summary>Disposes the idle sessions (the reader is disposed).</summary>
        private void DisposeIdle()
        {
            IpcFileReadSession?[] idle = _idle;
            for (int i = 0; i < idle.Length; i++)
                Interlocked.Exchange(ref idle[i], null)?.Dispose();
        }

        /// <summary>
        /// Gives the stream path of <paramref name="session"/> the batch's message next: its metadata (read and
        /// verified already, as <paramref name="message"/> in the flatbuffer <paramref name="verified"/> read: the
        /// stream path does not walk it again) and its body in the file; before them the schema, for a stream path
        /// opened now, and the dictionaries, for one not given them yet. Returns where the batch's message starts in
        /// the spliced stream.
        /// </summary>
        private long Feed(IpcFileReadSession session, in IpcFileBlock block, byte[] metadata, in IpcMessage message, in FlatReader verified)
        {
            // A stream path left short of its end (a read abandoned before the stream path ran) is not continued.
            if (session.Reader is not null && !session.Continues)
                session.End();
            bool open = session.Reader is not null;
            IpcSpliceStream.Piece[] pieces = session.Pieces(3 + _dictionaryPieces!.Length + (_unused?.Length ?? 0));
            int count = 0;
            if (!open)
                pieces[count++] = SchemaPiece();
            if (!session.Fed)
                count = AddDictionaries(pieces, count);
            int batch = count;
            pieces[count++] = IpcSpliceStream.Piece.Verified(metadata.AsMemory(0, block.MetadataLength), block.Offset, verified, message);
            pieces[count++] = IpcSpliceStream.Piece.File(block.Body, block.BodyLength);
            if (open)
                session.Splice!.Continue(pieces, count);
            else
                session.Open(_file, pieces, count, _options, _allocator, _codecs);
            session.Fed = true;
            return pieces[batch].Start;
        }

        private IpcSpliceStream.Piece SchemaPiece() =>
            IpcSpliceStream.Piece.Memory(_footer.SchemaMessage, _footer.Offset, IpcFileFooter.SchemaSkew, _footer.Length);

        /// <summary>
        /// <paramref name="e"/>, thrown by the stream path or Arrow's reader as they read batch <paramref name="index"/>
        /// (whose message starts at <paramref name="start"/> of <paramref name="splice"/>), located in the file; null for what
        /// passes as it is (the file's own failures, cancellation, a refused codec).
        /// </summary>
        private static Exception? Located(Exception e, IpcSpliceStream splice, int index, in IpcFileBlock block, long start, bool passesThrough)
        {
            if (e is InvalidDataException invalid)
                return InFile(invalid, splice, index, block.Offset, start);
            if (e is NotSupportedException unsupported && NotSupportedInFile(unsupported, splice) is { } located)
                return located;
            if (IsArrowsOwnFailure(e) || (passesThrough && IsCodecFailure(e)))
                return IpcErrors.At(block.Offset, $"record batch {index} of the IPC file: Arrow's reader failed on the message ({e.GetType().Name}: {e.Message})", e);
            return null;
        }

        /// <summary>
        /// <paramref name="e"/>, valid data the stream path does not read (an LZ4 frame naming a dictionary, a schema
        /// Arrow .NET cannot read), at its offset in the file instead of in the spliced stream; null for one it did not
        /// make (passed on as it is).
        /// </summary>
        private static NotSupportedException? NotSupportedInFile(NotSupportedException e, IpcSpliceStream splice)
        {
            if (OwnError.Of(e) is not { Origin: OffsetOrigin.IpcInput } own)
                return null;
            var inFile = new OwnError(OffsetOrigin.IpcFile, own.Shape, splice.FileOffsetOf(own.Offset), own.Detail, own.Location, own.Buffer);
            return IpcErrors.NotSupported(inFile, null, framed: false);
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
