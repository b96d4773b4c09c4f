using System;
using System.Buffers;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A message <see cref="IpcMessageCompressor"/> compressed: its metadata and body at the front of two arrays, either
    /// new (the holder's for good) or rented from <see cref="ArrayPool{T}.Shared"/> (given back by <see cref="Return"/>).
    /// </summary>
    internal readonly struct IpcCompressedMessage
    {
        private readonly byte[] _metadata;
        private readonly byte[] _body;
        private readonly int _metadataLength;
        private readonly int _bodyLength;
        private readonly bool _rented;

        public IpcCompressedMessage(byte[] metadata, int metadataLength, byte[] body, int bodyLength, bool rented)
        {
            _metadata = metadata;
            _metadataLength = metadataLength;
            _body = body;
            _bodyLength = bodyLength;
            _rented = rented;
        }

        public ReadOnlyMemory<byte> Metadata => new(_metadata, 0, _metadataLength);

        public ReadOnlyMemory<byte> Body => new(_body, 0, _bodyLength);

        /// <summary>
        /// Gives rented arrays back to the pool, where the next message may overwrite them: call it once, when nothing
        /// reads <see cref="Metadata"/> or <see cref="Body"/> any more. Nothing to do for new arrays or a default value.
        /// </summary>
        public void Return()
        {
            if (!_rented)
                return;
            ArrayPool<byte>.Shared.Return(_metadata);
            ArrayPool<byte>.Shared.Return(_body);
        }
    }
}
