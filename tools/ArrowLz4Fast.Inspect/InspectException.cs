using System;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>The input is not a readable Arrow IPC stream or file; reported as one line, never a stack trace.</summary>
    internal sealed class InspectException : Exception
    {
        public InspectException(string message, long offset)
            : base($"{message} at byte offset {offset}")
        {
            Offset = offset;
        }

        public long Offset { get; }
    }
}
