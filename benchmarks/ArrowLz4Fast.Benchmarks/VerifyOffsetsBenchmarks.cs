using System.IO;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// The cost of the verifying read (<see cref="Lz4FastOptions.VerifyOffsets"/>): whole reads of corpus streams with
    /// variable-length columns through <see cref="IpcDecompressingStream"/> on one core, without and with the check.
    /// The check reads each offsets buffer once after its batch is decoded (docs/correctness.md, "The verifying read").
    /// </summary>
    [MemoryDiagnoser]
    public class VerifyOffsetsBenchmarks
    {
        private readonly MemoryAllocator _slab = new SlabMemoryAllocator();
        private byte[] _bytes = null!;

        [Params("pyarrow/strings", "pyarrow/nested_dict", "pyarrow/tiny_batches", "rust/strings")]
        public string Stream { get; set; } = "pyarrow/strings";

        [GlobalSetup]
        public void Setup() => _bytes = ProducerStreams.LoadStream(Stream);

        [Benchmark(Baseline = true)]
        public long Plain() => Read(new Lz4FastOptions { MaxDegreeOfParallelism = 1 });

        [Benchmark]
        public long Verifying() => Read(new Lz4FastOptions { MaxDegreeOfParallelism = 1, VerifyOffsets = true });

        private long Read(Lz4FastOptions options)
        {
            long rows = 0;
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(_bytes, writable: false), options), _slab);
            while (reader.ReadNextRecordBatch() is Apache.Arrow.RecordBatch batch)
            {
                rows += batch.Length;
                batch.Dispose();
            }
            return rows;
        }
    }
}
