using System;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// What one read of <see cref="Lz4ArrowFileReader"/> works with, and may hand on to the next: a stream path (a
    /// spliced stream of the file's messages, the stream path over it, Arrow's stream reader over that), whether it was
    /// given the dictionaries, and the arrays a read fills (the pieces given to the splice, the batch's metadata). One
    /// read uses it at a time; the reader keeps a few idle ones so reads on several threads each have their own.
    /// </summary>
    internal sealed class IpcFileReadSession : IDisposable
    {
        /// <summary>The spliced stream of the open stream path; null when none is open.</summary>
        public IpcSpliceStream? Splice { get; private set; }

        /// <summary>The stream path over <see cref="Splice"/>.</summary>
        public IpcDecompressingStream? Stream { get; private set; }

        /// <summary>Arrow's stream reader over <see cref="Stream"/>.</summary>
        public ArrowStreamReader? Reader { get; private set; }

        /// <summary>Whether the open stream path was given the dictionaries.</summary>
        public bool Fed { get; set; }

        /// <summary>Whether a stream path is open and was read to its end, so it can be given more pieces.</summary>
        public bool Continues => Splice is not null && Splice.Position == Splice.Length;

        // The pieces given to the stream path at a read (the splice keeps the array it is given) and the array the
        // batch's metadata is read into: both kept from read to read.
        private IpcSpliceStream.Piece[] _pieces = Array.Empty<IpcSpliceStream.Piece>();
        private byte[] _metadata = Array.Empty<byte>();

        /// <summary>The array of pieces, at least <paramref name="most"/> long.</summary>
        public IpcSpliceStream.Piece[] Pieces(int most)
        {
            if (_pieces.Length < most)
                _pieces = new IpcSpliceStream.Piece[most];
            return _pieces;
        }

        /// <summary>The array the batch's metadata is read into, at least <paramref name="length"/> long.</summary>
        public byte[] Metadata(int length)
        {
            if (_metadata.Length < length)
                _metadata = new byte[Math.Max(length, 2 * _metadata.Length)];
            return _metadata;
        }

        /// <summary>Opens a stream path over <paramref name="count"/> of <paramref name="pieces"/>, not given the dictionaries yet.</summary>
        public void Open(IpcFileSource file, IpcSpliceStream.Piece[] pieces, int count, Lz4FastOptions options, MemoryAllocator allocator, ICompressionCodecFactory? codecs)
        {
            End();
            var splice = new IpcSpliceStream(file, pieces, count);
            var stream = new IpcDecompressingStream(splice, options, leaveOpen: false, IpcDecompressingStream.DefaultMaxBodyLength, drainAtEnd: false);
            // Bodies that pass through compressed (ZSTD) meet the given factory; LZ4 ones are decompressed already.
            Reader = new ArrowStreamReader(stream, allocator, new Lz4FastCodecFactory(options, codecs), leaveOpen: false);
            Stream = stream;
            Splice = splice;
        }

        /// <summary>Drops the open stream path (after a failure, or when the batches must not share its dictionaries); the arrays are kept.</summary>
        public void End()
        {
            ArrowStreamReader? reader = Reader;
            Reader = null;
            Stream = null;
            Splice = null;
            Fed = false;
            reader?.Dispose();
        }

        /// <summary>Drops the open stream path.</summary>
        public void Dispose() => End();
    }
}
