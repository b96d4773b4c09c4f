using System;
using System.Buffers;
using System.Buffers.Binary;
using System.IO;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Reading the next message ahead while the helpers decode this one. From a stream, each compressed body
    /// is copied out of the input before it can be decoded, and that copy ran on the calling thread with the helpers
    /// idle. With the read-ahead the calling thread copies the next message into the lookahead while the helpers start
    /// on this body, then joins them; the next message's body is then decoded where it lies, as from memory.
    /// </summary>
    /// <remarks>
    /// Only from inputs whose bytes are there to read: seekable ones (files, memory). A live stream's next message may
    /// come much later, and the batch being served must not wait for it. Only synchronous reads read ahead. Nothing read
    /// ahead is interpreted early: the message loop reads the lookahead before the input and checks every byte as it
    /// would have from the input, and a failure while reading ahead ends the read-ahead and is left for the loop to meet
    /// where it would have.
    /// </remarks>
    public sealed partial class IpcDecompressingStream
    {
        // Whether the input and the parallelism allow reading ahead; the delegate is made at the first body worth it.
        private readonly bool _canReadAhead;
        private Action? _readAhead;

        // The array the next read-ahead fills; the lookahead in use may still hold the body being decoded.
        private byte[]? _spare;

        /// <summary>
        /// Whether to read ahead while this body decodes: the body is long enough for the helpers, nothing is read ahead
        /// yet, and at least a parallel body's worth of input is left. Otherwise (the last batch of a stream, say) the
        /// body is decoded as without the read-ahead, where a body of one large buffer stays on the calling thread
        /// instead of going to a helper for nothing.
        /// </summary>
        /// <remarks>
        /// The body's length is looked at first: asking a file for its length is a system call, which a stream of tiny
        /// batches would otherwise make for every message (measured in docs/parallel-read.md).
        /// </remarks>
        private bool WorthReadingAhead()
        {
            // A projection reads only the kept buffers: the next message is not read ahead whole.
            if (!_canReadAhead || Projecting || _outputLength < _decoder.MinimumParallelLength || _input.HasLookahead)
                return false;
            try
            {
                return InputLeft() >= Math.Max(8, _decoder.MinimumParallelLength);
            }
            catch (Exception)
            {
                // The message loop meets the input's failure where it reads it.
                return false;
            }
        }

        /// <summary>
        /// The input left after the message being served: up to the file's footer, and past the rest of a body still
        /// arriving. Only for seekable inputs; it may throw what the input throws.
        /// </summary>
        private long InputLeft()
        {
            long left = _input.Left;
            if (_fileEnd >= 0)
                left = Math.Min(left, _fileEnd - _input.Position);
            return left - _source.Left;
        }

        /// <summary>
        /// Reads the next message (its length prefix, metadata and, for an LZ4 batch, its body) into the spare array and
        /// makes it the lookahead. Runs on the calling thread while the helpers decode the current body, which is not in
        /// the spare array.
        /// </summary>
        private void ReadAhead()
        {
            byte[] ahead = _spare ?? ArrayPool<byte>.Shared.Rent(InitialChunk);
            _spare = null;
            int got = 0;
            try
            {
                long available = InputLeft();
                if (available < 8 || !Fill(ref ahead, ref got, 8))
                    return;
                int length = BinaryPrimitives.ReadInt32LittleEndian(ahead);
                int metadata = 4;
                if (length == Continuation)
                {
                    length = BinaryPrimitives.ReadInt32LittleEndian(ahead.AsSpan(4));
                    metadata = 8;
                }
                if (length <= 0 || length > MaxMetadataLength || metadata + (long)length > available || !Fill(ref ahead, ref got, metadata + length))
                    return;
                IpcMessage message;
                try
                {
                    message = IpcMessageParser.Parse(new FlatReader(ahead, metadata, length, _input.Position + metadata));
                }
                catch (InvalidDataException)
                {
                    // The message loop parses it again and reports it where it stands.
                    return;
                }
                long total = metadata + (long)length + message.BodyLength;
                // A body a file will read at positions, on the threads that decode it, is not copied ahead.
                bool readAtPositions = _input.ReadsAtPositions && Deferrable(message.BodyLength, message.BufferCount);
                if (message.Lz4 && !readAtPositions && message.BodyLength <= DefaultMaxBodyLength && total <= available && total <= int.MaxValue - 64)
                    Fill(ref ahead, ref got, (int)total);
            }
            catch (Exception)
            {
                // The message loop reads the input again past what arrived, and meets the failure where it would have.
            }
            finally
            {
                // What was read is the input's next bytes, whatever happened: it becomes the lookahead.
                _spare = _input.ReplaceLookahead(ahead, got);
            }
        }

        /// <summary>Reads the input into <paramref name="ahead"/> until it holds <paramref name="count"/> bytes; false when the input ends first.</summary>
        private bool Fill(ref byte[] ahead, ref int got, int count)
        {
            if (ahead.Length < count)
            {
                byte[] larger = ArrayPool<byte>.Shared.Rent(count);
                ahead.AsSpan(0, got).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(ahead);
                ahead = larger;
            }
            got += _input.ReadUpTo(ahead, got, count - got);
            return got == count;
        }
    }
}
