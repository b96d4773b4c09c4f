using System;
using System.IO;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// The LZ4 data is malformed, truncated, fails a checksum, or (in the Arrow codec) decodes to another length than
    /// the Arrow buffer declares. <see cref="Offset"/> is the byte offset of the defect in the decoder's input, as
    /// <c>JsonException</c> carries a position; the message names the defect and the same offset.
    /// </summary>
    /// <remarks>
    /// <see cref="InvalidDataException"/>, which this package threw before 1.0, is sealed, so no type can both derive
    /// from it and carry an offset. This one derives from <see cref="IOException"/>, the base of the exceptions a
    /// stream reader already expects: catch <see cref="Lz4FrameException"/> to read the offset, or
    /// <see cref="IOException"/> to treat it as any failed read.
    /// </remarks>
    public sealed class Lz4FrameException : IOException
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
