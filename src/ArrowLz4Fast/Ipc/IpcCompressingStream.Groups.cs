using System;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>Small batches, gathered into groups compressed together on the helpers while the writer serializes the next ones.</summary>
    public sealed partial class IpcCompressingStream
    {
        // Small batches gathered to be compressed together: the group filling, and the other one, compressing on the
        // helpers (started) or written out. A grouped message's body is copied into the message array as it arrives.
        private readonly IpcMessageGroup[] _groups = { new IpcMessageGroup(), new IpcMessageGroup() };
        private int _filling;
        private bool _grouped;
        private IpcMessageGroup.Emit? _emitGrouped;

        /// <summary>
        /// Takes a whole small batch into the group filling, after the batch compressing, if any (no group holds a
        /// message while one is), then waits for the next message in the same array; a full group starts compressing on
        /// the helpers. <see langword="false"/> when the batch does not fit the group: it then goes alone, after the groups.
        /// </summary>
        private bool Group()
        {
            int header = _prefixLength + _metadataLength;
            int body = (int)_parsed.BodyLength;
            IpcMessageGroup filling = _groups[_filling];
            IpcBodyCompressor plan = _compressors[_current];
            // Not into a fresh group either: the group just written out must not refill before the output is written.
            if (!filling.Fits(header + (long)body, IpcMessageGroup.SlotBytes(plan), plan.PlannedItems.Length))
                return false;
            if (_pending.Message is not null)
                Drain();
            filling.Add(plan, _parsed, _message.AsSpan(0, header), _prefixLength, _message.AsSpan(header, body), _messageStart);
            if (filling.SourceBytes >= Math.Min(_encoder.Parallelism.MinimumLength, IpcMessageGroup.MaxSourceBytes) || filling.Count == IpcMessageGroup.MaxMessages)
                StartGroup();
            StartMessage();
            return true;
        }

        /// <summary>Completes and queues the group compressing, if any, then starts the one filled.</summary>
        private void StartGroup()
        {
            IpcMessageGroup started = _groups[1 - _filling];
            if (started.Started)
                WriteGroup(started);
            _groups[_filling].Start(_encoder);
            _filling = 1 - _filling;
        }

        /// <summary>Completes and queues every grouped message: the group compressing, then the one filling.</summary>
        private void DrainGroups()
        {
            IpcMessageGroup started = _groups[1 - _filling];
            if (started.Started)
                WriteGroup(started);
            IpcMessageGroup filling = _groups[_filling];
            if (filling.Count > 0)
            {
                filling.Start(_encoder);
                WriteGroup(filling);
            }
        }

        /// <summary>
        /// Completes a started group (the calling thread takes what no helper has started) and queues its messages in
        /// order; the group's arrays hold the output until it is written, before the group fills again.
        /// </summary>
        private void WriteGroup(IpcMessageGroup group)
        {
            group.Complete();
            group.Write(_minSpaceSavings, _emitGrouped ??= EmitGrouped);
            group.Clear();
        }

        private void EmitGrouped(long inputOffset, int inputHeader, long inputBody, ReadOnlyMemory<byte> header, ReadOnlyMemory<byte> body, int frames, int raw, long outputBody)
        {
            Place(inputOffset, inputHeader, inputBody, header.Length, body.Length);
            Queue(header, Owner.None);
            Queue(body, Owner.None);
            ArrowLz4FastMetrics.RecordCompressMessage(ArrowLz4FastMetrics.TagIpcStream, frames, raw, inputBody, outputBody);
        }

        /// <summary>Waits for a group still compressing after a failure, so no helper touches memory given back.</summary>
        private void AbandonGroups()
        {
            foreach (IpcMessageGroup group in _groups)
                group.Abandon();
        }

        private void DisposeGroups()
        {
            foreach (IpcMessageGroup group in _groups)
                group.Dispose();
        }
    }
}
