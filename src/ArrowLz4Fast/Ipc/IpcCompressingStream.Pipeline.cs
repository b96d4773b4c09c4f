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
            public byte[] Message;
            public FlatReader Reader;
            public IpcMessage Parsed;
            public int PrefixLength;
            public int MetadataLength;
            public long InputOffset;
        }

        /// <summary>A whole message is in <c>_message</c>: queues it, compressed or as it is, or starts compressing it, after the one before.</summary>
        private void ProcessMessage()
        {
            // The message array may have grown (and the old one gone back to its pool) since the metadata was parsed:
            // the reader is made again over the array that holds it now. The parsed positions are the flatbuffer's own.
            _reader = new FlatReader(_message, _prefixLength, _metadataLength, _messageStart + _prefixLength);
            int header = _prefixLength + _metadataLength;
            if (_ringMessage)
            {
                ProcessRingMessage();
                return;
            }
            IpcBodyCompressor compressor = _compressors[_current];
            if (_compress && !_inOrder)
            {
                StartAfterPending(compressor, header);
                return;
            }
            Drain();
            if (_inOrder)
            {
                long bodyLength = compressor.FinishInOrder();
                compressor.Record(ArrowLz4FastMetrics.TagIpcStream, _parsed.BodyLength);
                if (bodyLength > 0)
                {
                    // The message array only lent its metadata; it stays to take the next message.
                    QueueCompressed(_current, _message, _reader, _parsed, _prefixLength, _metadataLength, _messageStart, bodyLength);
                    StartMessage();
                    return;
                }
            }
            QueueMessage(_message, header, _parsed.BodyLength, _messageStart);
            NextMessageArray();
        }

        /// <summary>
        /// Starts compressing the whole message in <c>_message</c> on the helpers, then completes the batch compressing
        /// before it: the helpers move on to this batch as they run out of that one's buffers, and this thread encodes
        /// this batch's buffers while it waits for theirs, so no thread idles between the two.
        /// </summary>
        private void StartAfterPending(IpcBodyCompressor compressor, int header)
        {
            compressor.Start(new ReadOnlyMemory<byte>(_message, header, (int)_parsed.BodyLength), _encoder,
                _pending.Message is null ? null : _compressors[_pending.Compressor]);
            var started = new Pending
            {
                Compressor = _current,
                Message = _message,
                Reader = _reader,
                Parsed = _parsed,
                PrefixLength = _prefixLength,
                MetadataLength = _metadataLength,
                InputOffset = _messageStart,
            };
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
            if (_pending.Message is null)
                return;
            Pending pending = _pending;
            _pending = default;
            IpcBodyCompressor compressor = _compressors[pending.Compressor];
            int header = pending.PrefixLength + pending.MetadataLength;
            long inputBody = pending.Parsed.BodyLength;
            try
            {
                compressor.Complete();
                ReadOnlySpan<byte> body = pending.Message.AsSpan(header, (int)inputBody);
                long bodyLength = compressor.Layout(_minSpaceSavings);
                compressor.Record(ArrowLz4FastMetrics.TagIpcStream, inputBody);
                if (bodyLength == 0)
                {
                    QueueMessage(pending.Message, header, inputBody, pending.InputOffset);
                    return;
                }
                compressor.WriteBodyInPlace(body);
                QueueCompressed(pending.Compressor, pending.Message, pending.Reader, pending.Parsed, pending.PrefixLength, pending.MetadataLength, pending.InputOffset, bodyLength);
                GiveBack(pending.Message);
            }
            catch
            {
                GiveBack(pending.Message);
                throw;
            }
        }

        /// <summary>Queues a compressed message: its new metadata, written into the compressor's kept array, then the body in its scratch.</summary>
        private void QueueCompressed(int index, byte[] message, FlatReader reader, in IpcMessage parsed, int prefixLength, int metadataLength, long inputOffset, long bodyLength)
        {
            IpcBodyCompressor compressor = _compressors[index];
            int padded = IpcCompressedMetadata.WriteFramed(
                ref _metadata[index], message.AsSpan(prefixLength, metadataLength), reader, parsed, compressor.Buffers, bodyLength);
            QueueCompressedParts(inputOffset, prefixLength + metadataLength, parsed.BodyLength, _metadata[index]!, padded, compressor);
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
            if (_pending.Message is null)
                return;
            _compressors[_pending.Compressor].Abandon();
            GiveBack(_pending.Message);
            _pending = default;
        }
    }
}
