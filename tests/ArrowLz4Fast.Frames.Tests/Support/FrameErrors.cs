using System;
using System.IO;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The one shape corrupt input may fail with: an <see cref="InvalidDataException"/> (what callers catch) whose
    /// inner <see cref="Lz4FrameException"/> has the same message and the defect's offset.
    /// </summary>
    internal static class FrameErrors
    {
        public static Lz4FrameException Throws(Action action) => Of(Assert.Throws<InvalidDataException>(action));

        public static Lz4FrameException Throws(Func<object?> action) => Of(Assert.Throws<InvalidDataException>(action));

        public static Lz4FrameException Of(Exception? error)
        {
            InvalidDataException outer = Assert.IsType<InvalidDataException>(error);
            Lz4FrameException detail = Assert.IsType<Lz4FrameException>(outer.InnerException);
            Assert.Equal(outer.Message, detail.Message);
            return detail;
        }

        public static bool Is(Exception error) => error is InvalidDataException { InnerException: Lz4FrameException };
    }
}
