using System;
using System.Runtime.CompilerServices;

namespace ArrowLz4Fast
{
    /// <summary>What the byte offset of an error this package made counts from.</summary>
    internal enum OffsetOrigin
    {
        /// <summary>The LZ4 frame of one Arrow buffer, as the codec decodes it.</summary>
        BufferFrame,

        /// <summary>The Arrow IPC stream an <see cref="IpcDecompressingStream"/> reads.</summary>
        IpcInput,

        /// <summary>The Arrow IPC file a <see cref="Lz4ArrowFileReader"/> reads.</summary>
        IpcFile,
    }

    /// <summary>How a message is worded around its offset and detail.</summary>
    internal enum OwnErrorShape
    {
        /// <summary>Corrupt data: an <see cref="System.IO.InvalidDataException"/>.</summary>
        Invalid,

        /// <summary>Valid Arrow that Arrow .NET cannot read: a <see cref="NotSupportedException"/>.</summary>
        NotSupported,

        /// <summary>An LZ4 frame that names a dictionary: a <see cref="NotSupportedException"/>.</summary>
        DictionaryRequired,
    }

    /// <summary>
    /// The data an exception of this package was worded from, so a layer above can word it again (name the stream its
    /// offset counts in, add where the defect lies) from data, never from the message. The exceptions are sealed types
    /// (<see cref="System.IO.InvalidDataException"/>, <see cref="Frames.Lz4FrameException"/>) or carry nothing of
    /// ours (<see cref="NotSupportedException"/>), so the data is kept beside its exception, keyed weakly by it.
    /// </summary>
    internal sealed class OwnError
    {
        private static readonly ConditionalWeakTable<Exception, OwnError> Made = new ConditionalWeakTable<Exception, OwnError>();

        public OwnError(OffsetOrigin origin, OwnErrorShape shape, long offset, string detail, string location = "", string buffer = "")
        {
            Origin = origin;
            Shape = shape;
            Offset = offset;
            Detail = detail;
            Location = location;
            Buffer = buffer;
        }

        public OffsetOrigin Origin { get; }

        public OwnErrorShape Shape { get; }

        public long Offset { get; }

        /// <summary>What is wrong, without where.</summary>
        public string Detail { get; }

        /// <summary>Where in the stream the defect lies, as sentences after the message's first; empty when not added.</summary>
        public string Location { get; }

        /// <summary>The body buffer of the defect, and the field it belongs to, as <see cref="Location"/> names them; empty when not known.</summary>
        public string Buffer { get; }

        /// <summary>This error with <paramref name="location"/> added, <paramref name="buffer"/> being the buffer it names.</summary>
        public OwnError At(string location, string buffer = "") => new OwnError(Origin, Shape, Offset, Detail, location, buffer);

        /// <summary>Records that <paramref name="e"/> was worded from this data, and returns it.</summary>
        public T Mark<T>(T e)
            where T : Exception
        {
            Made.Add(e, this);
            return e;
        }

        /// <summary>The data <paramref name="e"/> was worded from; null for an exception this package did not make.</summary>
        public static OwnError? Of(Exception e) => Made.TryGetValue(e, out OwnError? data) ? data : null;
    }
}
