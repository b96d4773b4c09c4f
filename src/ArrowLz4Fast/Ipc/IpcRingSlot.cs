using System;
using System.Threading;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// One place in <see cref="IpcMessageRing"/>: a whole small batch message, verified by the writer, and what
    /// compressing it gives (the body in its compressor's scratch, the new metadata in its own array). Its arrays are
    /// kept for the next message that takes the slot.
    /// </summary>
    internal sealed class IpcRingSlot : IDisposable
    {
        private int _done;

        /// <summary>The message, verified by the writer; none until the slot is first filled.</summary>
        public IpcHeldMessage Message;

        /// <summary>The compressor of this slot: its body is the compressed body.</summary>
        public readonly IpcBodyCompressor Compressor = new();

        /// <summary>The new metadata, its continuation marker and length first.</summary>
        public byte[]? Metadata;

        /// <summary>The new metadata's length, prefix and padding included (when <see cref="BodyLength"/> is not 0).</summary>
        public int Padded;

        /// <summary>The compressed body's length, or 0 when no buffer saved space (the message then goes as it came).</summary>
        public long BodyLength;

        /// <summary>Whether the compressor planned the message (its frames' worst case fits one array), so it recorded it.</summary>
        public bool Planned;

        /// <summary>What compressing the message threw, thrown again by the writer when the slot's turn comes.</summary>
        public Exception? Failure;

        /// <summary>Whether the message is compressed (or failed); set last, after every result.</summary>
        public bool IsDone => Volatile.Read(ref _done) != 0;

        /// <summary>Before the slot is published again (by the writer, once its last output was written).</summary>
        public void Reset()
        {
            Failure = null;
            Volatile.Write(ref _done, 0);
        }

        /// <summary>
        /// Compresses the message as the in-order path does, every buffer one after the other on the calling thread:
        /// the same frames, layout and metadata. A failure is kept for the writer, never thrown here.
        /// </summary>
        public void Process(Lz4FrameEncoderOptions encoder, double minSpaceSavings)
        {
            try
            {
                BodyLength = 0;
                Planned = Compressor.Plan(Message.Reader, Message.Parsed, encoder);
                if (!Planned)
                    return;
                int header = Message.Header;
                Compressor.BeginInOrder();
                while (Compressor.TryPeekNext(out int start, out int length))
                    Compressor.EncodeNext(Message.Bytes.AsSpan(header + start, length), encoder, minSpaceSavings);
                BodyLength = Compressor.FinishInOrder();
                if (BodyLength == 0)
                    return;
                Padded = IpcCompressedMetadata.WriteFramed(ref Metadata, Message.Metadata, Message.Reader, Message.Parsed, Compressor.Buffers, BodyLength);
            }
            catch (Exception e)
            {
                Failure = e;
            }
            finally
            {
                // A full fence: the writer reads the results only after it sees the flag.
                Interlocked.Exchange(ref _done, 1);
            }
        }

        public void Dispose() => Compressor.Dispose();
    }
}
