using System;
using System.Collections.Generic;
using System.IO;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// A stream takes over what the last stream disposed on its thread leaves (its schema layouts among them): it must
    /// still know nothing of that stream's schema. A stream that starts with a record batch is refused, whatever stream
    /// the thread read before it.
    /// </summary>
    public class IpcStreamSparesTests
    {
        [Theory]
        [InlineData("ipc/pyarrow/tiny_batches.arrows")]
        [InlineData("ipc/pyarrow/nested_dict.arrows")]
        public void A_stream_made_after_another_on_its_thread_knows_nothing_of_its_schema(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            List<IpcMutator.Message> messages = IpcMutator.Messages(bytes);
            // The same stream without its schema: its first message is a batch.
            int second = messages[1].Start;
            byte[] headless = bytes.AsSpan(second).ToArray();

            string Refusal()
            {
                using var stream = new IpcDecompressingStream(new MemoryStream(headless, writable: false));
                var e = Assert.Throws<InvalidDataException>(() => Drain(stream));
                return e.Message;
            }

            string alone = Refusal();
            Assert.Contains("not a Schema", alone, System.StringComparison.Ordinal);
            for (int i = 0; i < 3; i++)
            {
                using (var whole = new IpcDecompressingStream(new MemoryStream(bytes, writable: false)))
                    Drain(whole);
                Assert.Equal(alone, Refusal());
            }
        }

        private static void Drain(Stream stream)
        {
            byte[] destination = new byte[1 << 16];
            while (stream.Read(destination, 0, destination.Length) > 0)
            {
            }
        }
    }
}
