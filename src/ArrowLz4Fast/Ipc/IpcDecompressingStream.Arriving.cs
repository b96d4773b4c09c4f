using System;
using System.Buffers;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// A body that arrives while it decodes. A body that was not read ahead (the first large batch of a
    /// seekable input, say) had to be copied whole out of the input, with the helpers idle, before its decode began. From
    /// a seekable input the metadata needs only each buffer's first bytes (its length prefix and frame header): those are
    /// read by seeking, the metadata is served, and when the reader asks for the body the calling thread copies it in
    /// chunks while the helpers decode each buffer as soon as it is there
    /// (<see cref="Lz4FrameDecoder.DecodeBatchArriving"/>). From a file read at positions, the input moves past the
    /// body at once, and each thread that claims a buffer reads its bytes itself
    /// (<see cref="Lz4FrameDecoder.DecodeBatchReading"/>): the copy is spread over the threads, not made by the caller.
    /// </summary>
    /// <remarks>
    /// Everything is checked as before: the prefixes are what the layout reads in any case, the buffers decode from the
    /// bytes copied afterwards, and each buffer's frame must decode to exactly what its prefix declared. Only for
    /// synchronous reads (the prefix reads are synchronous), bodies long enough to decode in parallel with at least two
    /// buffers, and inputs that hold the whole body.
    /// </remarks>
    public sealed partial class IpcDecompressingStream
    {
        // How much of a body arriving is copied before the helpers are told: small enough that the first buffer starts
        // soon, large enough that the count is published rarely.
        private const int ArrivalChunk = 1 << 17;

        // What is read of each buffer before its body: the 8-byte length prefix and an LZ4 frame header (at most 19 bytes).
        private const int BufferHead = 32;

        // The shortest average buffer a body may have to arrive: each buffer costs a seek and a read of its head.
        private const int MinimumArrivingBuffer = 1 << 14;

        private Lz4BatchSourceFill? _fillBody;
        private Lz4BatchSourceRead? _readBody;
        private bool _synchronous;
        private bool _arriving;
        private int _arrived;

        // The body is read at positions as it decodes, from _bodyStart in the input (which has moved past it).
        private bool _reading;
        private long _bodyStart;

        /// <summary>The body bytes still to come from the input for the body being served.</summary>
        private long ArrivingLeft => _arriving ? _message.BodyLength - _arrived : 0;

        /// <summary>The fill that brings the arriving body, or null when the body is all there.</summary>
        private Lz4BatchSourceFill? BodyFill => _arriving ? _fillBody ??= FillBody : null;

        /// <summary>The read that brings ranges of a body read at positions, or null.</summary>
        private Lz4BatchSourceRead? BodyRead => _reading ? _readBody ??= ReadBody : null;

        /// <summary>Whether a body of this shape is worth deferring: long enough to decode in parallel, with buffers large enough to pay a read of their heads each.</summary>
        private bool Deferrable(long length, int buffers) =>
            buffers >= 2 && length >= Math.Max(BufferHead, _decoder.MinimumParallelLength) && length / buffers >= MinimumArrivingBuffer;

        /// <summary>
        /// Reads the heads of the body's buffers by seeking, and leaves the input at the body's start with the body to
        /// arrive when it is served. False (the input where it was) when the body is better read whole first.
        /// </summary>
        private bool TryDeferBody(FlatReader reader, in IpcMessage message)
        {
            int length = (int)message.BodyLength;
            if (_readAhead is null || !_synchronous || _input.HasLookahead || !Deferrable(length, message.BufferCount))
                return false;
            long start;
            try
            {
                start = _input.Offset;
                if (InputLeft() < length)
                    return false;
            }
            catch (Exception)
            {
                // The message loop meets the input's failure where it reads the body.
                return false;
            }
            if (_body.Length < length)
            {
                ArrayPool<byte>.Shared.Return(_body);
                _body = Array.Empty<byte>();
                _body = ArrayPool<byte>.Shared.Rent(length);
            }
            bool read = false;
            try
            {
                read = ReadHeads(reader, message, start);
            }
            catch (Exception)
            {
                // As for a short read: the body is read whole, and any failure is met there.
            }
            if (!read)
                return false;
            _bodySource = _body.AsMemory(0, length);
            if (_input.ReadsAtPositions)
            {
                _reading = true;
                _bodyStart = start;
                _input.Skip(length);
                return true;
            }
            _arriving = true;
            _arrived = 0;
            return true;
        }

        /// <summary>Reads each buffer's head into its place in the body buffer; false when the input ends first.</summary>
        private bool ReadHeads(FlatReader reader, in IpcMessage message, long start)
        {
            for (int i = 0; i < message.BufferCount; i++)
            {
                int at = message.Buffers + (i * IpcMessageParser.BufferStructSize);
                // Inside the body and in order: checked with the metadata.
                int offset = (int)reader.ReadInt64(at);
                int count = (int)Math.Min(reader.ReadInt64(at + 8), BufferHead);
                if (count == 0)
                    continue;
                if (_input.ReadAt(start + offset, _body, offset, count) < count)
                    return false;
            }
            return true;
        }

        /// <summary>Reads a range of a body read at positions into its place; on whichever thread claimed it.</summary>
        private void ReadBody(int offset, int count)
        {
            int got = _input.ReadAt(_bodyStart + offset, _body, offset, count);
            if (got < count)
                IpcErrors.ThrowTruncated(_bodyOffset + offset + got, "a message body", _message.BodyLength, offset + got);
        }

        /// <summary>Copies the next chunk of the arriving body out of the input; returns how much of it is there.</summary>
        private int FillBody(int arrived)
        {
            int length = (int)_message.BodyLength;
            // The stream's own count rules: a decode retried after a failure, or asked again once all is there, reads nothing twice.
            if (!_arriving)
                return length;
            Arrived(_input.Read(_body, _arrived, Math.Min(length - _arrived, ArrivalChunk)));
            return _arrived;
        }

        /// <summary>Brings the rest of the arriving body asynchronously (an asynchronous read of a body deferred by a synchronous one).</summary>
        private async ValueTask ArriveAsync(CancellationToken cancellationToken)
        {
            if (_reading)
            {
                // A body deferred to be read at positions: read whole here, before the decode.
                ReadBody(0, (int)_message.BodyLength);
                _reading = false;
                return;
            }
            int length = (int)_message.BodyLength;
            while (_arriving)
            {
                int n = await _input.ReadAsync(_body.AsMemory(_arrived, length - _arrived), _body, cancellationToken).ConfigureAwait(false);
                Arrived(n);
            }
        }

        /// <summary>Counts what one read of the arriving body brought (it is already counted in the input's position); an input that ended is a truncated body.</summary>
        private void Arrived(int n)
        {
            int length = (int)_message.BodyLength;
            if (n <= 0)
                IpcErrors.ThrowTruncated(_input.Position, "a message body", length, _arrived);
            _arrived += n;
            if (_arrived == length)
                _arriving = false;
        }
    }
}
