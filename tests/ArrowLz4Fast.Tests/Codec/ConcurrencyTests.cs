using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    public class ConcurrencyTests
    {
        [Fact]
        public void One_factory_and_one_codec_decode_correctly_from_many_threads_at_once()
        {
            List<(byte[] Frame, int Length, string Sha256)> buffers = CorpusBuffers.AllProfiles();
            var factory = new Lz4FastCodecFactory();
            using ICompressionCodec shared = factory.CreateCodec(CompressionCodecType.Lz4Frame);
            int checkedBuffers = 0;
            using var start = new Barrier(4);

            Parallel.For(0, 4, new ParallelOptions { MaxDegreeOfParallelism = 4 }, worker =>
            {
                using ICompressionCodec own = factory.CreateCodec(CompressionCodecType.Lz4Frame);
                start.SignalAndWait();
                for (int round = 0; round < 5; round++)
                {
                    // Each worker walks the buffers in its own order so different frames overlap in time.
                    foreach (int i in Enumerable.Range(0, buffers.Count).Select(i => (i * (worker + 1) + round) % buffers.Count))
                    {
                        var output = new byte[buffers[i].Length];
                        (round % 2 == 0 ? shared : own).Decompress(buffers[i].Frame, output);
                        Assert.Equal(buffers[i].Sha256, Hex.Sha256(output));
                        Interlocked.Increment(ref checkedBuffers);
                    }
                }
            });

            Assert.Equal(4 * 5 * buffers.Count, checkedBuffers);
        }
    }
}
