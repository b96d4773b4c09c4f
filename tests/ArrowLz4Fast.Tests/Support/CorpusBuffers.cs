using System.Collections.Generic;
using System.Linq;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>The LZ4 buffers of real IPC streams, as Arrow hands them to a codec, with the reference output hash.</summary>
    internal static class CorpusBuffers
    {
        public static List<(byte[] Frame, int Length, string Sha256)> Of(string committedFile)
        {
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());
            ArrowData.ReadAll(Corpus.Committed(committedFile), recorder);
            return recorder.Inputs.Zip(recorder.Decompressed, (i, d) => (i.Frame, i.Length, d.Sha256)).ToList();
        }

        /// <summary>Buffers of every producer profile: pyarrow linked 64 KiB blocks (and uncompressed blocks), Java 4 MiB blocks with content checksums, arrow-rs single-block frames.</summary>
        public static List<(byte[] Frame, int Length, string Sha256)> AllProfiles()
        {
            var all = new List<(byte[], int, string)>();
            foreach (string file in new[] { "ipc/pyarrow/strings.arrows", "ipc/pyarrow/incompressible.arrows", "ipc/java/strings.arrows", "ipc/java/empty.arrows", "ipc/rust/nested_dict.arrows" })
                all.AddRange(Of(file));
            return all;
        }

        public static bool IsLinkedMultiBlock(byte[] frame)
        {
            if (frame.Length == 0)
                return false;
            var reader = new Lz4FrameReader(frame);
            int blocks = 0;
            bool linked = false;
            while (reader.Read())
            {
                if (reader.TokenType == Lz4FrameTokenType.FrameHeader)
                    linked = reader.Frame.IsLinked;
                else if (reader.TokenType == Lz4FrameTokenType.Block)
                    blocks++;
            }
            return linked && blocks > 1;
        }
    }
}
