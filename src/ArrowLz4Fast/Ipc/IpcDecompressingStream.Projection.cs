using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// The projection (<see cref="Lz4FastOptions.Projection"/>): each message is parsed and checked whole as without
    /// it; then the schema's fields vector and a record batch's nodes and buffers vectors are shrunk in place to the
    /// selected fields, the kept buffers' offsets rewritten for a compacted body, and only the kept buffers' bytes are
    /// gathered into that body (the others skipped: seeked past when the input can, read into a small scratch array
    /// otherwise). From a file read at positions, a compacted LZ4 body large enough to decode in parallel is not
    /// gathered: only its kept buffers' heads are read, and each thread that decodes a kept buffer reads it
    /// (<see cref="IpcPositionalBody"/>). The compacted body is then decoded, or served, as any other. Dictionary
    /// batches of ids no selected field uses are skipped whole.
    /// </summary>
    public sealed partial class IpcDecompressingStream
    {
        private const int SkipChunk = 1 << 14;

        private readonly IpcProjection? _projection;
        private IpcProjectionPlan? _plan;

        // The kept buffers of the message in progress: Source and SourceLength in the original body, Destination in the compacted one.
        private IpcBufferItem[] _gather = Array.Empty<IpcBufferItem>();
        private int _gatherCount;
        private int _gatherLength;
        private long _gatherSource;
        private bool _dropping;
        private bool _projected;
        private byte[]? _skipScratch;

        /// <summary>The projection of the last schema read; null before one, or without a projection.</summary>
        internal IpcProjectionPlan? Plan => _plan;

        /// <summary>A projection that leaves fields out is in force (one selecting every field reads as without one).</summary>
        private bool Projecting => _plan is { IsAll: false };

        private byte[] SkipScratch => _skipScratch ??= ArrayPool<byte>.Shared.Rent(SkipChunk);

        /// <summary>The columns of the message's batch as the reader sees them: projected for a projected record batch.</summary>
        private IpcSchemaColumns.Layout? LayoutOf(in IpcMessage message) =>
            _projected && !message.Dictionary.Exists ? _plan!.Layout : Columns?.For(message);

        /// <summary>
        /// Applies the projection to the message just parsed: rewrites a schema, or sets a record batch up to be
        /// gathered, or a dictionary batch no selected field uses to be skipped. True with the gather fill wanted.
        /// </summary>
        private bool Project()
        {
            _projected = false;
            _dropping = false;
            switch (_message.HeaderType)
            {
                case IpcMessageParser.HeaderSchema:
                    _plan = null;
                    IpcSchemaColumns columns = Columns!;
                    var original = new FlatReader(_schema, 0, _schemaLength, _reader.InputOffset(0));
                    _plan = IpcProjectionPlan.Create(_projection!, original, _schemaRoot, columns);
                    if (!_plan.IsAll)
                        _plan.RewriteSchema(_header, 8, _metadataLength, _reader.InputOffset(0), _message.Root);
                    return false;
                case IpcMessageParser.HeaderDictionaryBatch when Projecting && !_plan!.Uses(_message.DictionaryId):
                    _dropping = true;
                    _gatherCount = 0;
                    _gatherLength = 0;
                    _gatherSource = _message.BodyLength;
                    return Want(Phase.Gathered, Target.Gather, 0, 0, 0);
                case IpcMessageParser.HeaderRecordBatch when Projecting && _message.Batch.Exists:
                    ProjectBatch();
                    return Want(Phase.Gathered, Target.Gather, 0, _gatherLength, 0);
                default:
                    return false;
            }
        }

        /// <summary>What <see cref="Step"/> does once the kept buffers are gathered (or a dropped message skipped).</summary>
        private bool Gathered()
        {
            if (_dropping)
            {
                _state = State.NextMessage;
                _phase = Phase.Message;
                return true;
            }
            if (_message.Lz4)
            {
                _bodySource = _body.AsMemory(0, _gatherLength);
                FinishCompressed(_reader, _message, _metadataLength);
                return false;
            }
            _outputLength = _gatherLength;
            _outputRead = 0;
            BeginHeader(8 + _metadataLength, _gatherLength > 0 ? State.Gathered : State.NextMessage);
            return false;
        }

        /// <summary>Rewrites the record batch's metadata for the selected fields and lists the buffers to gather.</summary>
        private void ProjectBatch()
        {
            IpcProjectionPlan plan = _plan!;
            FlatReader reader = _reader;
            IpcMessage message = _message;
            long at = reader.InputOffset(0);
            if (message.BodyLength > DefaultMaxBodyLength)
                IpcErrors.Throw(at, $"the body of {message.BodyLength} bytes is longer than the longest array");
            (int nodes, int nodeCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            (int buffers, int bufferCount) = reader.Vector(message.Batch, IpcMessageParser.RecordBatchBuffers, IpcMessageParser.BufferStructSize, "RecordBatch.buffers");
            if (nodeCount != plan.SchemaNodes || bufferCount < plan.SchemaBuffers)
                IpcErrors.Throw(at, $"message metadata, the record batch lists {nodeCount} field node(s) and {bufferCount} buffer(s) but its schema needs {plan.SchemaNodes} and {plan.SchemaBuffers}");
            var all = message;
            all.Buffers = buffers;
            all.BufferCount = bufferCount;
            if (!message.Lz4)
                IpcBodyLayout.CheckExtents(reader, all);
            IpcProjectedLayout.CheckWrites(reader, all, nodes, nodeCount, buffers, bufferCount);

            if (_gather.Length < plan.Buffers)
            {
                if (_gather.Length > 0)
                    ArrayPool<IpcBufferItem>.Shared.Return(_gather);
                _gather = Array.Empty<IpcBufferItem>();
                _gather = ArrayPool<IpcBufferItem>.Shared.Rent(plan.Buffers);
            }
            long end = 0;
            int count = 0;
            foreach ((int start, int length) in plan.BufferRanges)
            {
                for (int b = start; b < start + length; b++)
                {
                    int slot = buffers + (b * IpcMessageParser.BufferStructSize);
                    ref IpcBufferItem item = ref _gather[count++];
                    item = default;
                    item.Source = (int)reader.ReadInt64(slot);
                    item.SourceLength = (int)reader.ReadInt64(slot + 8);
                    item.Destination = (int)IpcBodyLayout.Align(end);
                    if (item.SourceLength > 0)
                        end = item.Destination + (long)item.SourceLength;
                }
            }
            _gatherCount = count;
            _gatherLength = (int)IpcBodyLayout.Align(end);
            _gatherSource = message.BodyLength;

            Span<byte> metadata = _header.AsSpan(8, _metadataLength);
            IpcProjectedLayout.Rewrite(metadata, plan, nodes, buffers, _gather, count, message.BodyLengthField, _gatherLength);
            int served = IpcMetadataCompaction.Compact(metadata, reader, message, (nodes, nodeCount, plan.Nodes), (buffers, bufferCount, plan.Buffers));
            IpcMessage check = IpcProjectedLayout.CheckReadsBack(_header, 8, served, at, message, plan, _gatherLength);
            if (served != _metadataLength)
            {
                // The compacted metadata is what is read from here on, and what Arrow's reader is served.
                _metadataLength = served;
                _reader = new FlatReader(_header, 8, served, at);
                BinaryPrimitives.WriteInt32LittleEndian(_header.AsSpan(4), served);
            }
            // Where the tables and vectors now lie (compaction moves what followed a dropped tail).
            _message = check;
            _message.NodeCount = plan.Nodes;
            _message.BufferCount = message.Lz4 ? plan.Buffers : 0;
            _message.BodyLength = _gatherLength;
            _projected = true;
        }

        /// <summary>Reads the kept buffers into the compacted body and skips the rest of the original body.</summary>
        private int GatherSync()
        {
            if (TryDeferGather())
                return _gatherLength;
            long cursor = BeginGather();
            for (int i = NextRun(0, out IpcBufferItem run); run.SourceLength > 0; i = NextRun(i, out run))
            {
                SkipSync(run.Source - cursor);
                int got = 0;
                while (got < run.SourceLength)
                {
                    int chunk = GatherRoom(run.Destination, got, run.SourceLength);
                    int m = _input.Read(_body, run.Destination + got, chunk);
                    if (m <= 0)
                        IpcErrors.ThrowTruncated(_input.Position, "a message body", _gatherSource, run.Source + got);
                    got += m;
                }
                cursor = run.Source + (long)run.SourceLength;
            }
            SkipSync(_gatherSource - cursor);
            return EndGather();
        }

        /// <inheritdoc cref="GatherSync"/>
        private async ValueTask<int> GatherAsync(CancellationToken cancellationToken)
        {
            if (TryDeferGather())
                return _gatherLength;
            long cursor = BeginGather();
            for (int i = NextRun(0, out IpcBufferItem run); run.SourceLength > 0; i = NextRun(i, out run))
            {
                await SkipAsync(run.Source - cursor, cancellationToken).ConfigureAwait(false);
                int got = 0;
                while (got < run.SourceLength)
                {
                    int chunk = GatherRoom(run.Destination, got, run.SourceLength);
                    int m = await _input.ReadAsync(_body.AsMemory(run.Destination + got, chunk), SkipScratch, cancellationToken).ConfigureAwait(false);
                    if (m <= 0)
                        IpcErrors.ThrowTruncated(_input.Position, "a message body", _gatherSource, run.Source + got);
                    got += m;
                }
                cursor = run.Source + (long)run.SourceLength;
            }
            await SkipAsync(_gatherSource - cursor, cancellationToken).ConfigureAwait(false);
            return EndGather();
        }

        /// <summary>
        /// The next bytes to gather from kept buffer <paramref name="i"/> on, as one read: kept buffers that lie in the
        /// original body as far apart as in the compacted one (a field's validity, offsets and data, padding between)
        /// are read together, a system call each instead of one per buffer. Returns the buffer after the run; the run
        /// is empty when no kept buffer is left.
        /// </summary>
        private int NextRun(int i, out IpcBufferItem run)
        {
            run = default;
            while (i < _gatherCount && _gather[i].SourceLength == 0)
                i++;
            if (i == _gatherCount)
                return i;
            IpcBufferItem first = _gather[i];
            long end = first.Source + (long)first.SourceLength;
            for (i++; i < _gatherCount; i++)
            {
                IpcBufferItem next = _gather[i];
                if (next.SourceLength == 0)
                    continue;
                // The buffers are in order without overlap (checked with the metadata): the gap is padding, a few bytes.
                if (next.Source - first.Source != next.Destination - first.Destination)
                    break;
                end = next.Source + (long)next.SourceLength;
            }
            run.Source = first.Source;
            run.Destination = first.Destination;
            run.SourceLength = (int)(end - first.Source);
            return i;
        }

        /// <summary>
        /// Checks that a seekable input holds the whole original body, so skipping cannot pass its end unnoticed, and
        /// then makes room for the compacted body at once; returns where the gather stands in the original body.
        /// </summary>
        private long BeginGather()
        {
            _bodyOffset = _input.Position;
            if (_input.Seekable && !_input.HasLookahead)
            {
                long left = InputLeft();
                if (left < _gatherSource)
                    IpcErrors.ThrowTruncated(_input.Position + Math.Max(0, left), "a message body", _gatherSource, Math.Max(0, left));
                GrowBody(_gatherLength, 0);
            }
            return 0;
        }

        /// <summary>Zeroes the padding between the kept buffers (a body served as it is) and returns the compacted length.</summary>
        private int EndGather()
        {
            if (!_message.Lz4)
            {
                int end = 0;
                for (int i = 0; i < _gatherCount; i++)
                {
                    IpcBufferItem item = _gather[i];
                    if (item.SourceLength == 0)
                        continue;
                    _body.AsSpan(end, item.Destination - end).Clear();
                    end = item.Destination + item.SourceLength;
                }
                GrowBody(_gatherLength, end);
                _body.AsSpan(end, _gatherLength - end).Clear();
            }
            return _gatherLength;
        }

        /// <summary>
        /// Room for the next read of a kept buffer; from an input that cannot say its length the body grows at most by
        /// what has arrived, so a length that lies costs no more memory than the input holds.
        /// </summary>
        private int GatherRoom(int destination, int got, int length)
        {
            int want = length - got;
            int have = _body.Length - destination - got;
            if (have <= 0 || (have < want && have < InitialChunk))
            {
                long step = Math.Min(want, Math.Max(InitialChunk, destination + (long)got));
                GrowBody((int)Math.Min(destination + got + step, int.MaxValue - 64), destination + got);
                have = _body.Length - destination - got;
            }
            return Math.Min(want, have);
        }

        private void GrowBody(int size, int keep)
        {
            if (_body.Length >= size)
                return;
            byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(size, (int)Math.Min(_body.Length * 2L, int.MaxValue - 64)));
            _body.AsSpan(0, Math.Min(keep, _body.Length)).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_body);
            _body = larger;
        }

        private void SkipSync(long count)
        {
            while (count > 0)
            {
                if (_input.Seekable && !_input.HasLookahead)
                {
                    SkipSeeking(count);
                    return;
                }
                int m = _input.Read(SkipScratch, 0, (int)Math.Min(count, SkipChunk));
                if (m <= 0)
                    IpcErrors.ThrowTruncated(_input.Position, "a message body", _gatherSource, _gatherSource - count);
                count -= m;
            }
        }

        private async ValueTask SkipAsync(long count, CancellationToken cancellationToken)
        {
            while (count > 0)
            {
                if (_input.Seekable && !_input.HasLookahead)
                {
                    SkipSeeking(count);
                    return;
                }
                int m = await _input.ReadAsync(SkipScratch.AsMemory(0, (int)Math.Min(count, SkipChunk)), SkipScratch, cancellationToken).ConfigureAwait(false);
                if (m <= 0)
                    IpcErrors.ThrowTruncated(_input.Position, "a message body", _gatherSource, _gatherSource - count);
                count -= m;
            }
        }

        // The input held the whole body when the gather began (BeginGather).
        private void SkipSeeking(long count)
        {
            while (count > 0)
            {
                int step = (int)Math.Min(count, int.MaxValue);
                _input.Skip(step);
                count -= step;
            }
        }

        private int ServeGathered(Span<byte> destination)
        {
            int n = Math.Min(destination.Length, _outputLength - _outputRead);
            _body.AsSpan(_outputRead, n).CopyTo(destination);
            _outputRead += n;
            if (_outputRead == _outputLength)
                _state = State.NextMessage;
            return n;
        }

        private void ReturnProjectionArrays()
        {
            if (_gather.Length > 0)
                ArrayPool<IpcBufferItem>.Shared.Return(_gather);
            _gather = Array.Empty<IpcBufferItem>();
            if (_skipScratch is not null)
            {
                ArrayPool<byte>.Shared.Return(_skipScratch);
                _skipScratch = null;
            }
        }
    }
}
