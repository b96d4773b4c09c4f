using System.IO;
using ArrowLz4Fast.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// What a stream allocates: its own objects, at construction, and nothing per schema, message or buffer when its
    /// schema names no dictionary and no Null field (the schema's walk then keeps no dictionary ids or Null nodes).
    /// </summary>
    [Collection(SerialTests.Name)]
    public class IpcStreamAllocationTests
    {
        private readonly ITestOutputHelper _output;

        public IpcStreamAllocationTests(ITestOutputHelper output) => _output = output;

        [Theory]
        [InlineData("ipc/pyarrow/tiny_batches.arrows")]
        [InlineData("ipc/rust/tiny_batches.arrows")]
        [InlineData("ipc/java/tiny_batches.arrows")]
        [InlineData("ipc/java/wide.arrows")]
        public void Reading_a_stream_allocates_nothing_beyond_the_stream_itself(string file)
        {
            byte[] bytes = File.ReadAllBytes(Corpus.Committed(file));
            byte[] destination = new byte[1 << 20];
            long Measure(bool read)
            {
                long before = System.GC.GetAllocatedBytesForCurrentThread();
                using (var stream = new IpcDecompressingStream(new MemoryStream(bytes, writable: false), IpcWrapped.Options(1)))
                {
                    while (read && stream.Read(destination, 0, destination.Length) > 0)
                    {
                    }
                }
                return System.GC.GetAllocatedBytesForCurrentThread() - before;
            }
            // Warm: the pool's arrays exist after the first read.
            Measure(read: true);
            Measure(read: false);
            long constructed = Measure(read: false);
            long read = Measure(read: true);
            _output.WriteLine($"{file}: {constructed} B to make and dispose the stream, {read} B to read it whole");
            Assert.Equal(constructed, read);
        }
    }
}
