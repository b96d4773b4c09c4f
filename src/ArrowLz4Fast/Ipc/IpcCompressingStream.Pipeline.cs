using System;
using System.Buffers;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>The pipeline behind the message loop: a whole message queued, or compressed on the helpers after the one before, and completed in order.</summary>
    public sealed partial class IpcCompressingStream
    {
        // The batch compressing on the helpers (at most one) and the two compressors it alternates between: the
        // other one's body may be queued for the output until the output has been written.
        private readonly IpcBodyCompressor[] _compressors = { new IpcBodyCompressor(), new IpcBodyCompressor() };
        private Pending _pending;

        // Each compressor's new metadata, kept for the next message (the output holds it until written).
        private readonly byte[]?[] _metadata = new byte[]?[2];

        private struct Pending
        {
            public int Compressor;
            public IpcHeldMessage Message;
        }

        /// <summary>A whole message is in <c>_message</c>: queues it, compressed or as it is, or starts compressing it, after the one before.</summary>
        private void ProcessMessage()
        {
            IpcHeldMessage message = HoldMessage();
            if (_ringMessage)
            {
                ProcessRingMessage(message);
                return;
            }
            IpcBodyCompressor compressor = _compressors[_current];
            if (_compress && !_inOrder)
            {
                StartAfterPending(compressor, message);
                return;
            }
            Drain();
            if (_inOrder)
            {
                long bodyLength = compressor.FinishInOrder();
                compressor.Record(ArrowLz4FastMetrics.TagIpcStream, message.Parsed.BodyLength);
                if (bodyLength > 0)
                {
                    // The message array only lent its metadata; it stays to take the next message.
                    QueueCompressed(_current, message, bodyLength);
                    StartMessage();
                    return;
                }
            }
            QueueMessage(message.Bytes, message.Header, message.Parsed.BodyLength, message.InputOffset);
            NextMessageArray();
        }

        /// <summary>The whole message in <c>_message</c>, as the batch compressing or a ring slot holds it.</summary>
        private IpcHeldMessage HoldMessage()
        {
            // The message array may have grown (and the old one gone back to its pool) since the metadata was parsed:
            // the reader is made again over the array that holds it now. The parsed positions are the flatbuffer's own.
            var reader = new FlatReader(_message, _prefixLength, _metadataLength, _messageStart + _prefixLength);
            return new IpcHeldMessage(_message, reader, _parsed, _prefixLength, _metadataLength, _messageStart);
        }

        /// <summary>
        /// Starts compressing the whole message in <c>_message</c> on the helpers, then completes the batch compressing
        /// before it: the helpers move on to this batch as they run out of that one's buffers, and this thread encodes
        /// this batch's buffers while it waits for theirs, so no thread idles between the two.
        /// </summary>
        private void StartAfterPending(IpcBodyCompressor compressor, in IpcHeldMessage message)
        {
            compressor.Start(new ReadOnlyMemory<byte>(message.Bytes, message.Header, (int)message.Parsed.BodyLength), _encoder,
                _pending.Message.Bytes is null ? null : _compressors[_pending.Compressor]);
            var started = new Pending { Compressor = _current, Message = message };
            try
            {
                Drain();
            }
            catch
            {
                // The stream has failed: no helper may go on touching this message's array.
                compressor.Abandon();
                throw;
            }
            _pending = started;
            NextMessageArray();
        }

        private void NextMessageArray()
        {
            _message = TakeSpare();
            StartMessage();
        }

        /// <summary>An array for the next message: the spare one kept, or one from the pool.</summary>
        private byte[] TakeSpare()
        {
            byte[] array = _spare ?? ArrayPool<byte>.Shared.Rent(InitialMessageLength);
            _spare = null;
            return array;
        }

        /// <summary>Queues everything complete before the message being filled: the ring's slots, or the batch compressing (never both).</summary>
        private void Drain()
        {
            DrainPending();
            DrainRing();
        }

        /// <summary>Completes the batch compressing, if any, and queues it: compressed, or as it was when nothing saved space.</summary>
        private void DrainPending()
        {
            if (_pending.Message.Bytes is null)
                return;
            Pending pending = _pending;
            _pending = default;
            IpcBodyCompressor compressor = _compressors[pending.Compressor];
            IpcHeldMessage message = pending.Message;
            long inputBody = message.Parsed.BodyLength;
            try
            {
                compressor.Complete();
                long bodyLength = compressor.Layout(_minSpaceSavings);
                compressor.Record(ArrowLz4FastMetrics.TagIpcStream, inputBody);
                if (bodyLength == 0)
                {
                    QueueMessage(message.Bytes, message.Header, inputBody, message.InputOffset);
                    return;
                }
                compressor.WriteBodyInPlace(message.Body);
                QueueCompressed(pending.Compressor, message, bodyLength);
                GiveBack(message.Bytes);
            }
            catch
            {
                GiveBack(message.Bytes);
                throw;
            }
        }

        /// <summary>Queues a compressed message: its new metadata, written into the compressor's kept array, then the body in its scratch.</summary>
        private void QueueCompressed(int index, in IpcHeldMessage message, long bodyLength)
        {
            IpcBodyCompressor compressor = _compressors[index];
            int padded = IpcCompressedMetadata.WriteFramed(
                ref _metadata[index], message.Metadata, message.Reader, message.Parsed, compressor.Buffers, bodyLength);
            QueueCompressedParts(message.InputOffset, message.Header, message.Parsed.BodyLength, _metadata[index]!, padded, compressor);
        }

        /// <summary>Queues a compressed message's new metadata (prefixed, <paramref name="padded"/> bytes) and the body in its compressor's scratch, both kept by their owner.</summary>
        private void QueueCompressedParts(long inputOffset, int inputHeader, long inputBody, byte[] metadata, int padded, IpcBodyCompressor compressor)
        {
            Place(inputOffset, inputHeader, inputBody, padded, compressor.Body.Length);
            Queue(metadata, 0, padded, Owner.None);
            Queue(compressor.Body, Owner.None);
        }

        /// <summary>Queues a whole message as it was written; its array goes back once written unless its owner keeps it.</summary>
        private void QueueMessage(byte[] message, int header, long body, long inputOffset, Owner owner = Owner.Spare)
        {
            Place(inputOffset, header, body, header, body);
            Queue(message, 0, (int)(header + body), owner);
        }

        /// <summary>Waits for a batch still compressing after a failure, so no helper touches memory given back.</summary>
        private void AbandonPending()
        {
            _ring?.StopWorker();
            if (_pending.Message.Bytes is null)
                return;
            _compressors[_pending.Compressor].Abandon();
            GiveBack(_pending.Message.Bytes);
            _pending = default;
        }
    }
}
