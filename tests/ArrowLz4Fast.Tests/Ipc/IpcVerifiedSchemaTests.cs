using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A stream whose schema has the bytes of the last schema its thread verified takes that verification instead of
    /// walking the schema again. It must read, and fail, exactly as a stream whose schema is met for the first time:
    /// real streams and seeded mutants of their schemas, each read right after the original (its schema remembered)
    /// and right after another stream (another schema remembered), give the same bytes or the same error.
    /// </summary>
    public class IpcVerifiedSchemaTests
    {
        private const int Mutants = 150;

        // A stream of another schema, read before a mutant to make its schema new to the thread.
        private const string Other = "ipc/rust/tiny_batches.arrows";

        [Theory]
        [InlineData("ipc/pyarrow/tiny_batches.arrows")]
        [InlineData("ipc/java/tiny_batches.arrows")]
        [InlineData("ipc/pyarrow/strings.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        public void A_schema_met_again_reads_and_fails_as_when_met_first(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            byte[] other = File.ReadAllBytes(Corpus.Committed(Other));
            List<IpcMutator.Message> messages = IpcMutator.Messages(original);

            string first = Outcome(original, after: other);
            Assert.StartsWith("read ", first, StringComparison.Ordinal);
            Assert.Equal(first, Outcome(original, after: original));

            var random = new Random(46);
            int failed = 0;
            for (int i = 0; i < Mutants; i++)
            {
                byte[] mutant = IpcMutator.MutateSchema(original, messages, random, out string what);
                string met = Outcome(mutant, after: other);
                string again = Outcome(mutant, after: original);
                Assert.True(met == again, $"mutant {i} ({what}): after another schema {met}; after the original {again}");
                if (!met.StartsWith("read ", StringComparison.Ordinal))
                    failed++;
            }
            // The mutants reach the checks: most of them are refused.
            Assert.True(failed > Mutants / 4, $"{failed} of {Mutants} mutants refused");
        }

        [Fact]
        public void A_thread_reading_streams_of_a_few_schemas_in_turn_keeps_each_verified()
        {
            // Four corpus streams of four schemas read in turn on this thread: each schema is then one the thread keeps,
            // whichever was read last, and a fifth schema takes the place of the one read longest ago.
            string[] files = { "ipc/pyarrow/tiny_batches.arrows", "ipc/java/tiny_batches.arrows", "ipc/pyarrow/strings.arrows", "ipc/rust/tiny_batches.arrows", "ipc/java/strings.arrows" };
            byte[][] streams = Array.ConvertAll(files, f => File.ReadAllBytes(Corpus.Committed(f)));
            byte[][] schemas = Array.ConvertAll(streams, SchemaMetadata);
            Assert.Equal(files.Length, new HashSet<string>(Array.ConvertAll(schemas, Convert.ToBase64String)).Count);
            Assert.Equal(4, IpcVerifiedSchema.Entries);

            for (int round = 0; round < 2; round++)
            {
                for (int i = 0; i < 4; i++)
                    Read(streams[i]);
                for (int i = 3; i >= 0; i--)
                    Assert.True(IpcVerifiedSchema.TryMatch(schemas[i], out _, out int nodes, out int buffers) && nodes > 0 && buffers > 0, $"round {round}: {files[i]}'s schema is not kept");
            }
            // The matches above, last to first, leave the fourth stream's schema the one used longest ago: the fifth takes its place.
            Read(streams[4]);
            Assert.True(IpcVerifiedSchema.TryMatch(schemas[4], out _, out _, out _));
            Assert.False(IpcVerifiedSchema.TryMatch(schemas[3], out _, out _, out _), "the schema used longest ago is still kept");
            Assert.True(IpcVerifiedSchema.TryMatch(schemas[0], out _, out _, out _));
        }

        /// <summary>The metadata flatbuffer of the stream's first message, its schema.</summary>
        private static byte[] SchemaMetadata(byte[] stream)
        {
            IpcMutator.Message schema = IpcMutator.Messages(stream)[0];
            return stream.AsSpan(schema.Metadata, schema.MetadataLength).ToArray();
        }

        /// <summary>Reads <paramref name="after"/> whole, then <paramref name="bytes"/>: a digest of what it reads, or its error.</summary>
        private static string Outcome(byte[] bytes, byte[] after)
        {
            Read(after);
            try
            {
                return $"read {Convert.ToBase64String(Read(bytes))}";
            }
            catch (InvalidDataException e)
            {
                return $"{e.GetType().Name} at {(e.InnerException as Lz4FrameException)?.Offset}: {e.Message}";
            }
            catch (NotSupportedException e)
            {
                return $"{e.GetType().Name}: {e.Message}";
            }
        }

        private static byte[] Read(byte[] bytes)
        {
            using var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(1));
            using var sha = SHA256.Create();
            byte[] buffer = new byte[1 << 16];
            int n;
            while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
                sha.TransformBlock(buffer, 0, n, null, 0);
            sha.TransformFinalBlock(buffer, 0, 0);
            return sha.Hash!;
        }
    }
}
