using System;
using System.Buffers;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Deferred bodies: a body that was not read ahead (the first large batch of a seekable input, say) had to be
    /// copied whole out of the input, with the helpers idle, before its decode began. From a seekable input the metadata
    /// needs only each buffer's first bytes (its length prefix and frame header): those are read at their positions,
    /// the metadata is served, and the rest of the body comes while it decodes, as the input brings it
    /// (<see cref="IpcInput.CreateDeferredBody"/>): copied forward by the calling thread while the helpers decode each
    /// buffer once it is there (<see cref="IpcArrivingBody"/>), or, from a file read at positions, read by each thread
    /// that claims a buffer (<see cref="IpcPositionalBody"/>). A projected batch from a file is deferred too: only its
    /// kept buffers are read, each by the thread that decodes it.
    /// </summary>
    /// <remarks>
    /// Everything is checked as before: the heads are what the layout reads in any case, the buffers decode from the
    /// bytes brought afterwards, and each buffer's frame must decode to exactly what its prefix declared. Only for
    /// synchronous reads (the head reads are synchronous) or an input read at positions (whose reads are synchronous
    /// in any case), bodies long enough to decode in parallel with at least two buffers, and inputs that hold the whole body.
    /// </remarks>
    public sealed partial class IpcDecompressingStream
    {
        // What is read of each buffer before its body: the 8-byte length prefix and an LZ4 frame header (at most 19 bytes).
        private const int BufferHead = 32;

        // The shortest average buffer a body may have to be deferred: each buffer costs a read of its head.
        private const int MinimumArrivingBuffer = 1 << 14;

        private bool _synchronous;

        /// <summary>Whether a body of this shape is worth deferring: long enough to decode in parallel, with buffers large enough to pay a read of their heads each.</summary>
        private bool Deferrable(long length, int buffers) =>
            buffers >= 2 && length >= Math.Max(BufferHead, _decoder.MinimumParallelLength) && length / buffers >= MinimumArrivingBuffer;

        /// <summary>Whether the input may defer a body of <paramref name="length"/> bytes (of <paramref name="buffers"/> buffers) starting where it stands.</summary>
        private bool MayDefer(long length, int buffers) =>
            _decoder.Degree > 1 && _input.CanReadAhead && (_synchronous || _input.ReadsAtPositions) && !_input.HasLookahead && Deferrable(length, buffers);

        /// <summary>
        /// Reads the heads of the body's buffers at their positions, and leaves the input where its deferred kind wants
        /// it, with the body to come when it is served. False (the input where it was) when the body is better read whole first.
        /// </summary>
        private bool TryDeferBody(FlatReader reader, in IpcMessage message)
        {
            int length = (int)message.BodyLength;
            if (!MayDefer(length, message.BufferCount) || !TryStart(length, out long start))
                return false;
            if (_body.Length < length)
            {
                ArrayPool<byte>.Shared.Return(_body);
                _body = Array.Empty<byte>();
                _body = ArrayPool<byte>.Shared.Rent(length);
            }
            for (int i = 0; i < message.BufferCount; i++)
            {
                int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                // Inside the body and in order: checked with the metadata.
                int offset = (int)reader.ReadInt64(at);
                if (!TryReadHead(start + offset, offset, (int)reader.ReadInt64(at + 8)))
                    return false;
            }
            _bodySource = _body.AsMemory(0, length);
            _deferred ??= _input.CreateDeferredBody();
            _deferred.Defer(_body, length, start);
            _source = _deferred;
            return true;
        }

        /// <summary>
        /// Defers a projected LZ4 batch from an input read at positions: only the kept buffers' heads are read now, into
        /// their places in the compacted body, and the input moves past the original body; the threads that decode the
        /// kept buffers read them. False (nothing read, the input where it was) when the batch is better gathered first.
        /// </summary>
        private bool TryDeferGather()
        {
            if (!_message.Lz4 || !_input.ReadsAtPositions || !MayDefer(_gatherLength, _gatherCount) || !TryStart(_gatherSource, out long start))
                return false;
            GrowBody(_gatherLength, 0);
            for (int i = 0; i < _gatherCount; i++)
            {
                ref readonly IpcBufferItem kept = ref _gather[i];
                if (!TryReadHead(start + kept.Source, kept.Destination, kept.SourceLength))
                    return false;
            }
            _bodyOffset = _input.Position;
            _deferred ??= _input.CreateDeferredBody();
            ((IpcPositionalBody)_deferred).DeferProjected(_body, _gatherLength, start, _gatherSource, _gather, _gatherCount);
            _source = _deferred;
            return true;
        }

        /// <summary>Where the input stands, when it holds the whole body of <paramref name="length"/> bytes from there.</summary>
        private bool TryStart(long length, out long start)
        {
            start = 0;
            try
            {
                start = _input.Offset;
                return InputLeft() >= length;
            }
            catch (Exception)
            {
                // The message loop meets the input's failure where it reads the body.
                return false;
            }
        }

        /// <summary>Reads a buffer's head at <paramref name="position"/> of the input into <c>_body</c> at <paramref name="at"/>; false when the input ends first or fails.</summary>
        private bool TryReadHead(long position, int at, int bufferLength)
        {
            int count = Math.Min(bufferLength, BufferHead);
            try
            {
                return count == 0 || _input.ReadAt(position, _body, at, count) == count;
            }
            catch (Exception)
            {
                // As for a short read: the body is read whole, and any failure is met there.
                return false;
            }
        }
    }
}
