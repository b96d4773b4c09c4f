using System;
using System.Runtime.ExceptionServices;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Small batches at two threads or more: compressed on one worker through <see cref="IpcMessageRing"/> while the
    /// writer's thread serializes the next, instead of in order on the writer's thread.
    /// </summary>
    public sealed partial class IpcCompressingStream
    {
        private IpcMessageRing? _ring;

        // The message being filled goes to the ring: decided, and verified, when its metadata arrived.
        private bool _ringMessage;

        // A body the ring takes is shorter than this too: its slots keep their arrays, so a large parallel minimum
        // would leave each slot holding that much.
        private const int MaxRingBody = 1024 * 1024;

        /// <summary>
        /// Whether the batch whose metadata was just verified goes to the ring: every buffer would be encoded in order
        /// on the calling thread anyway (the body is under the parallel minimum), and a second thread is allowed.
        /// </summary>
        private bool GoesToRing() =>
            _parsed.BodyLength > 0 && _parsed.BodyLength < Math.Min(_encoder.Parallelism.MinimumLength, MaxRingBody) && IpcMessageRing.Applies(_encoder);

        /// <summary>
        /// A whole small batch is in <c>_message</c>: queues the slots finished before it, then hands the message
        /// array to the next slot and publishes it. With every slot taken (none written yet), the ring is queued whole
        /// and this message compressed here, in a slot outside the ring.
        /// </summary>
        private void ProcessRingMessage(in IpcHeldMessage message)
        {
            DrainPending();
            IpcMessageRing ring = _ring ??= new IpcMessageRing(_encoder, _minSpaceSavings);
            while (ring.TryTakeDone(out IpcRingSlot done))
                QueueSlot(done);
            if (ring.HasRoom)
            {
                Fill(ring.Next, message);
                ring.Publish();
            }
            else
            {
                QueueRing(ring);
                IpcRingSlot slot = ring.Overflow;
                Fill(slot, message);
                slot.Process(_encoder, _minSpaceSavings);
                QueueSlot(slot);
            }
            StartMessage();
        }

        /// <summary>Moves the message into <paramref name="slot"/>, taking the slot's array (or a spare) for the next one.</summary>
        private void Fill(IpcRingSlot slot, in IpcHeldMessage message)
        {
            byte[] next = slot.Message.Bytes;
            slot.Message = message;
            slot.Reset();
            _message = next is null ? TakeSpare() : next;
        }

        /// <summary>Queues a compressed slot for the output (or its message as it came); its failure, if any, is thrown here.</summary>
        private void QueueSlot(IpcRingSlot slot)
        {
            if (slot.Failure is not null)
                ExceptionDispatchInfo.Capture(slot.Failure).Throw();
            long inputBody = slot.Message.Parsed.BodyLength;
            if (slot.Planned)
                slot.Compressor.Record(ArrowLz4FastMetrics.TagIpcStream, inputBody);
            // The slot keeps its arrays for its next message.
            if (slot.BodyLength == 0)
                QueueMessage(slot.Message.Bytes, slot.Message.Header, inputBody, slot.Message.InputOffset, Owner.None);
            else
                QueueCompressedParts(slot.Message.InputOffset, slot.Message.Header, inputBody, slot.Metadata!, slot.Padded, slot.Compressor);
        }

        /// <summary>Queues every published slot, in order, compressing here those the worker has not claimed.</summary>
        private void QueueRing(IpcMessageRing ring)
        {
            while (!ring.IsEmpty)
                QueueSlot(ring.TakeOldest());
        }

        /// <summary>
        /// Before any message that does not go to the ring, and at <c>Flush</c> and <c>Dispose</c>: queues the ring
        /// whole and lets the worker go, so a batch spread over the helpers finds them free.
        /// </summary>
        private void DrainRing()
        {
            if (_ring is null)
                return;
            QueueRing(_ring);
            _ring.StopWorker();
        }
    }
}
