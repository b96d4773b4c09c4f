using System;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// A message refused because its declared decoded body is longer than the caller's limit, not because it is
    /// malformed: Flight answers it as gRPC answers a message over its receive limit (ResourceExhausted), not as bad data.
    /// Thrown, before anything is allocated for the body, only where the caller asks for it (<see cref="IpcMessageDecoder"/>);
    /// elsewhere the limit is an InvalidDataException like any defect. The inner exception carries the byte offset.
    /// </summary>
    internal sealed class IpcLimitException : Exception
    {
        public IpcLimitException(string message, long limit, Exception? inner)
            : base(message, inner)
        {
            Limit = limit;
        }

        /// <summary>The limit, in decoded bytes, that the body would pass.</summary>
        public long Limit { get; }
    }
}
