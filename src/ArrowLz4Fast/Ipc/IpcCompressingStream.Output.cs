using System;
using System.Buffers;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast
{
    /// <summary>The output queue: what complete messages produced, written to the output from the calling thread only.</summary>
    public sealed partial class IpcCompressingStream
    {
        private enum Owner
        {
            None,
            Spare,
        }

        private struct Segment
        {
            public ReadOnlyMemory<byte> Memory;
            public byte[]? Array;
            public Owner Owner;
        }

        // At most: the compressed message's header and body, and a message passed through after it.
        private Segment[] _segments = new Segment[4];
        private int _outputCount;
        private long _outputQueued;

        private void Queue(byte[] array, int offset, int count, Owner owner) =>
            Queue(new ReadOnlyMemory<byte>(array, offset, count), owner, array);

        private void Queue(ReadOnlyMemory<byte> memory, Owner owner, byte[]? array = null)
        {
            if (_outputCount == _segments.Length)
                Array.Resize(ref _segments, _segments.Length * 2);
            _segments[_outputCount++] = new Segment { Memory = memory, Array = array, Owner = owner };
            _outputQueued += memory.Length;
        }

        private void QueueCopy(ReadOnlySpan<byte> bytes)
        {
            Queue(bytes.ToArray(), Owner.None);
        }

        private void WritePendingOutput()
        {
            try
            {
                for (int i = 0; i < _outputCount; i++)
                {
                    ref Segment segment = ref _segments[i];
                    if (MemoryMarshal.TryGetArray(segment.Memory, out ArraySegment<byte> array))
                        _output.Write(array.Array!, array.Offset, array.Count);
                    else
                        WriteSpan(segment.Memory.Span);
                    Written(ref segment);
                }
                _outputCount = 0;
                _ring?.Written();
            }
            catch (Exception e)
            {
                Fail(e);
                throw;
            }
        }

        private async ValueTask WritePendingOutputAsync(CancellationToken cancellationToken)
        {
            try
            {
                for (int i = 0; i < _outputCount; i++)
                {
                    ReadOnlyMemory<byte> memory = _segments[i].Memory;
#if NET
                    await _output.WriteAsync(memory, cancellationToken).ConfigureAwait(false);
#else
                    MemoryMarshal.TryGetArray(memory, out ArraySegment<byte> array);
                    await _output.WriteAsync(array.Array!, array.Offset, array.Count, cancellationToken).ConfigureAwait(false);
#endif
                    Written(ref _segments[i]);
                }
                _outputCount = 0;
                _ring?.Written();
            }
            catch (Exception e)
            {
                Fail(e);
                throw;
            }
        }

        private void WriteSpan(ReadOnlySpan<byte> bytes)
        {
#if NET
            _output.Write(bytes);
#else
            byte[] copy = ArrayPool<byte>.Shared.Rent(bytes.Length);
            bytes.CopyTo(copy);
            _output.Write(copy, 0, bytes.Length);
            ArrayPool<byte>.Shared.Return(copy);
#endif
        }

        private void Written(ref Segment segment)
        {
            _outputPosition += segment.Memory.Length;
            if (segment.Owner == Owner.Spare && segment.Array is not null)
                GiveBack(segment.Array);
            segment = default;
        }

        /// <summary>Gives back the arrays of output never written (the stream failed or was disposed first).</summary>
        private void ReleaseOutput()
        {
            for (int i = 0; i < _outputCount; i++)
            {
                if (_segments[i].Owner == Owner.Spare && _segments[i].Array is not null)
                    ArrayPool<byte>.Shared.Return(_segments[i].Array!);
                _segments[i] = default;
            }
            _outputCount = 0;
            Debug.Assert(_pending.Message.Bytes is null, "the batch compressing was abandoned first");
        }
    }
}
