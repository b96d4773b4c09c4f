using System;
using System.Buffers;
using System.Diagnostics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The compressed input of <see cref="Lz4FrameStreamReader"/>: one pooled buffer whose bytes
    /// [<see cref="Start"/>..<see cref="End"/>) are buffered, <see cref="Start"/> being at <see cref="Offset"/> in the
    /// stream. The reader's step function says how many buffered bytes it needs (<see cref="Lz4StreamNeed"/>); only the
    /// fill comes in a sync and an async form, and both leave the buffer in the same state.
    /// </summary>
    internal sealed class Lz4StreamInput : IDisposable
    {
        private const int InitialSize = 64 * 1024;

        private readonly Stream _stream;
        private long _drained;

        public Lz4StreamInput(Stream stream)
        {
            _stream = stream;
            Array = ArrayPool<byte>.Shared.Rent(InitialSize);
        }

        /// <summary>The buffer; read-ahead decodes blocks in place from it.</summary>
        public byte[] Array { get; private set; }

        public int Start { get; private set; }

        public int End { get; private set; }

        /// <summary>The stream offset of <see cref="Start"/>: what error messages locate.</summary>
        public long Offset { get; private set; }

        /// <summary>The inner stream has ended: what is buffered is all there is.</summary>
        public bool Eof { get; private set; }

        /// <summary>Some token was consumed: an input that ends now is not empty.</summary>
        public bool ConsumedAny { get; private set; }

        /// <summary>Bytes read past a bad magic number only to count them (the buffer was full).</summary>
        public long Drained => _drained;

        public int Available => End - Start;

        public ReadOnlySpan<byte> Buffered => new(Array, Start, End - Start);

        public void Consume(int count)
        {
            Debug.Assert(count >= 0 && count <= Available, "consumes only buffered bytes");
            Start += count;
            Offset += count;
            ConsumedAny = true;
        }

        /// <summary>Trades the buffer for one of at least <paramref name="size"/> bytes, keeping what is buffered.</summary>
        public void Ensure(int size)
        {
            if (Array.Length < size)
                Trade(size);
        }

        /// <summary>
        /// Reads until <paramref name="need"/> bytes are buffered or the stream ends, into room for
        /// <paramref name="room"/> (at least <paramref name="need"/>); <see cref="Lz4StreamNeed.DrainToEnd"/> reads to the end.
        /// </summary>
        public void Fill(int need, int room)
        {
            if (need == Lz4StreamNeed.DrainToEnd)
            {
                MakeRoom(Array.Length);
                while (!Eof)
                {
                    int free = Array.Length - End;
                    int n = free > 0 ? _stream.Read(Array, End, free) : _stream.Read(Array, 4, Array.Length - 4);
                    Count(n, free);
                }
                return;
            }
            BeforeFill(room);
            while (Available < need)
            {
                if (!Append(_stream.Read(Array, End, Array.Length - End)))
                    return;
            }
        }

        /// <summary>The asynchronous <see cref="Fill"/>.</summary>
        public async ValueTask FillAsync(int need, int room, CancellationToken cancellationToken)
        {
            if (need == Lz4StreamNeed.DrainToEnd)
            {
                MakeRoom(Array.Length);
                while (!Eof)
                {
                    int free = Array.Length - End;
                    int n = free > 0
                        ? await ReadInnerAsync(End, free, cancellationToken).ConfigureAwait(false)
                        : await ReadInnerAsync(4, Array.Length - 4, cancellationToken).ConfigureAwait(false);
                    Count(n, free);
                }
                return;
            }
            BeforeFill(room);
            while (Available < need)
            {
                if (!Append(await ReadInnerAsync(End, Array.Length - End, cancellationToken).ConfigureAwait(false)))
                    return;
            }
        }

        public void Dispose()
        {
            byte[] input = Array;
            Array = System.Array.Empty<byte>();
            if (input.Length != 0)
                ArrayPool<byte>.Shared.Return(input);
        }

        private void BeforeFill(int room)
        {
            if (Available == 0)
                Start = End = 0;
            MakeRoom(room);
        }

        /// <summary>Takes <paramref name="n"/> bytes just read at <see cref="End"/>; false at the end of the stream.</summary>
        private bool Append(int n)
        {
            if (n <= 0)
            {
                Eof = true;
                return false;
            }
            End += n;
            Debug.Assert(End <= Array.Length, "the inner stream wrote no more than it was offered");
            return true;
        }

        /// <summary>Makes room for <paramref name="need"/> buffered bytes: compacts, or trades the buffer for a larger one.</summary>
        private void MakeRoom(int need)
        {
            if (Start + need <= Array.Length)
                return;
            if (need > Array.Length)
            {
                Trade(need);
                return;
            }
            int available = Available;
            Buffer.BlockCopy(Array, Start, Array, 0, available);
            Start = 0;
            End = available;
        }

        /// <summary>Moves the buffered bytes to the front of a pooled buffer of at least <paramref name="size"/> bytes.</summary>
        private void Trade(int size)
        {
            int available = Available;
            byte[] larger = ArrayPool<byte>.Shared.Rent(size);
            Buffer.BlockCopy(Array, Start, larger, 0, available);
            ArrayPool<byte>.Shared.Return(Array);
            Array = larger;
            Start = 0;
            End = available;
        }

        /// <summary>Counts bytes read only to learn how many follow a bad magic number; once the buffer is full, they are read over it, past the magic number.</summary>
        private void Count(int n, int free)
        {
            if (n <= 0)
                Eof = true;
            else if (free > 0)
                End += n;
            else
                _drained += n;
        }

        private ValueTask<int> ReadInnerAsync(int offset, int count, CancellationToken cancellationToken) =>
#if NETCOREAPP2_1_OR_GREATER || NETSTANDARD2_1_OR_GREATER
            _stream.ReadAsync(Array.AsMemory(offset, count), cancellationToken);
#else
            new(_stream.ReadAsync(Array, offset, count, cancellationToken));
#endif
    }
}
