using System;
using System.IO;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Where and what: the detail of an <see cref="InvalidDataException"/> thrown for LZ4 data that is malformed,
    /// truncated, fails a checksum, or (in the Arrow codec) decodes to another length than the Arrow buffer declares.
    /// Every such exception of this package carries one as its <see cref="Exception.InnerException"/>, with the byte
    /// offset of the defect in the decoder's input in <see cref="Offset"/>, as <c>JsonException</c> carries a position.
    /// </summary>
    /// <remarks>
    /// <see cref="InvalidDataException"/> is what .NET code expects from corrupt data (Apache.Arrow.Compression,
    /// <c>System.IO.Compression</c>), so it is what this package throws; it is sealed, so the offset cannot be a
    /// property of a derived type and travels in this inner exception instead:
    /// <code>
    /// catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
    /// {
    ///     log.Warn($"corrupt LZ4 data at byte {frame.Offset}: {e.Message}");
    /// }
    /// </code>
    /// Both have the same message. This type is never thrown on its own.
    /// </remarks>
    public sealed class Lz4FrameException : Exception
    {
        /// <summary>Creates an exception with a default message and no known offset.</summary>
        public Lz4FrameException()
            : this("Invalid LZ4 data.", -1, null)
        {
        }

        /// <summary>Creates an exception with no known offset.</summary>
        /// <param name="message">What is wrong.</param>
        public Lz4FrameException(string message)
            : this(message, -1, null)
        {
        }

        /// <summary>Creates an exception with no known offset that wraps another.</summary>
        /// <param name="message">What is wrong.</param>
        /// <param name="innerException">The failure that revealed it.</param>
        public Lz4FrameException(string message, Exception? innerException)
            : this(message, -1, innerException)
        {
        }

        /// <summary>Creates an exception for a defect at <paramref name="offset"/>.</summary>
        /// <param name="message">What is wrong; by convention it names the offset too.</param>
        /// <param name="offset">Byte offset of the defect in the decoder's input; -1 when unknown.</param>
        /// <param name="innerException">The failure that revealed it, if any.</param>
        public Lz4FrameException(string message, long offset, Exception? innerException = null)
            : base(message, innerException)
        {
            Offset = offset;
        }

        /// <summary>
        /// Byte offset of the defect in the input of the decoder that threw: the start of the field or block at fault,
        /// or the end of the input for data that ends too early. -1 when unknown.
        /// </summary>
        public long Offset { get; }
    }
}
