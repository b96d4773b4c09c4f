using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A deferred body from a seekable stream: the input stays at the body's start, and the calling thread copies the
    /// body in chunks while the helpers decode each buffer as soon as it is there
    /// (<see cref="Lz4FrameDecoder.DecodeBatchArriving"/>).
    /// </summary>
    internal sealed class IpcArrivingBody : IpcDeferredBody
    {
        // How much is copied before the helpers are told: small enough that the first buffer starts soon, large
        // enough that the count is published rarely.
        private const int ArrivalChunk = 1 << 17;

        private readonly Lz4BatchSourceFill _fill;
        private bool _arriving;
        private int _arrived;

        public IpcArrivingBody(IpcInput input)
            : base(input) => _fill = Fill;

        /// <inheritdoc/>
        public override bool ReadsAtPositions => false;

        /// <inheritdoc/>
        public override bool AllThere => !_arriving;

        /// <inheritdoc/>
        public override long Left => _arriving ? Length - _arrived : 0;

        /// <inheritdoc/>
        public override void Defer(byte[] array, int length, long start)
        {
            base.Defer(array, length, start);
            Debug.Assert(Input.Offset == start, "the body arrives from where the input stands");
            _arriving = length > 0;
            _arrived = 0;
        }

        /// <inheritdoc/>
        public override void BringAll(int degree)
        {
            while (_arriving)
                Fill(_arrived);
        }

        /// <inheritdoc/>
        public override void DecodeBatch(Span<byte> destination, ReadOnlySpan<Lz4FrameBatchItem> batch, Lz4FrameDecoderOptions options, Action? alongside)
        {
            if (_arriving)
                Lz4FrameDecoder.DecodeBatchArriving(Bytes, destination, batch, options, _fill, alongside);
            else
                base.DecodeBatch(destination, batch, options, alongside);
        }

        /// <inheritdoc/>
        public override async ValueTask BringAllAsync(CancellationToken cancellationToken)
        {
            while (_arriving)
                Arrived(await Input.ReadAsync(Array.AsMemory(_arrived, Length - _arrived), Array, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>Copies the next chunk of the body out of the input; returns how much of it is there.</summary>
        private int Fill(int arrived)
        {
            // This body's own count rules: a decode retried after a failure, or asked again once all is there, reads nothing twice.
            if (!_arriving)
                return Length;
            Arrived(Input.Read(Array, _arrived, Math.Min(Length - _arrived, ArrivalChunk)));
            return _arrived;
        }

        /// <summary>Counts what one read brought (the input counted it already); an input that ended is a truncated body.</summary>
        private void Arrived(int n)
        {
            if (n <= 0)
                IpcErrors.ThrowTruncated(Input.Position, "a message body", Length, _arrived);
            _arrived += n;
            Debug.Assert(_arrived <= Length, "the reads stop at the body's end");
            if (_arrived == Length)
                _arriving = false;
        }
    }
}
