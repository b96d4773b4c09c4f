using System;
using System.IO;

namespace ArrowLz4Fast.Frames
{
    /// <summary>
    /// Where and what: the detail of an <see cref="InvalidDataException"/> thrown for LZ4 data that is malformed,
    /// truncated, fails a checksum, or (in the Arrow codec) decodes to another length than the Arrow buffer declares.
    /// Every such exception of this package carries one as its <see cref="Exception.InnerException"/>, with the byte
    /// offset of the defect in the decoder's input in <see cref="Offset"/>, as <c>JsonException</c> carries a position,
    /// what is wrong in <see cref="Kind"/> (as liblz4's error codes) and in words in <see cref="Detail"/>.
    /// </summary>
    /// <remarks>
    /// <see cref="InvalidDataException"/> is what .NET code expects from corrupt data (Apache.Arrow.Compression,
    /// <c>System.IO.Compression</c>), so it is what this package throws; it is sealed, so the offset cannot be a
    /// property of a derived type and travels in this inner exception instead:
    /// <code>
    /// catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
    /// {
    ///     log.Warn($"corrupt LZ4 data ({frame.Kind}) at byte {frame.Offset}: {frame.Detail}");
    /// }
    /// </code>
    /// Both have the same message, which is <see cref="Detail"/> with the offset, so a layer above (a container of
    /// frames) can say where the frame lies without reading the message. A frame that names a dictionary is declined
    /// with a <see cref="NotSupportedException"/> that carries one too, of kind <see cref="Lz4FrameErrorKind.DictionaryRequired"/>.
    /// This type is never thrown on its own.
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
            : this(message, Lz4FrameErrorKind.Unspecified, message, offset, innerException)
        {
        }

        /// <summary>Creates an exception for a defect of a known kind at <paramref name="offset"/>.</summary>
        /// <param name="message">What is wrong and where, for people: by convention <paramref name="detail"/> with the offset.</param>
        /// <param name="kind">What is wrong.</param>
        /// <param name="detail">What is wrong in words, without where (no offset).</param>
        /// <param name="offset">Byte offset of the defect in the decoder's input; -1 when unknown.</param>
        /// <param name="innerException">The failure that revealed it, if any.</param>
        public Lz4FrameException(string message, Lz4FrameErrorKind kind, string detail, long offset, Exception? innerException = null)
            : this(message, kind, detail, offset, -1, innerException)
        {
        }

        internal Lz4FrameException(string message, Lz4FrameErrorKind kind, string detail, long offset, int batchItem, Exception? innerException)
            : base(message, innerException)
        {
            Kind = kind;
            Detail = detail ?? message;
            Offset = offset;
            BatchItem = batchItem;
        }

        /// <summary>What is wrong; <see cref="Lz4FrameErrorKind.Unspecified"/> when the exception was made without a kind.</summary>
        public Lz4FrameErrorKind Kind { get; }

        /// <summary>
        /// What is wrong in words, without where: for example "block 2 checksum is 0x… but its 4096 stored bytes hash
        /// to 0x…". The message is this with the offset (and, from a layer above, the place of the frame) around it.
        /// </summary>
        public string Detail { get; }

        /// <summary>
        /// The index of the item whose frame is at fault, for an error of <see cref="Lz4FrameDecoder.DecodeBatch"/>
        /// (whose <see cref="Offset"/> is then in the batch's source); -1 otherwise.
        /// </summary>
        public int BatchItem { get; }

        /// <summary>
        /// Byte offset of the defect in the input of the decoder that threw: the start of the field or block at fault,
        /// or the end of the input for data that ends too early. -1 when unknown.
        /// </summary>
        public long Offset { get; }
    }
}
