using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Reading two columns of a 200-column LZ4 Feather file (<see cref="WideTable"/>: four 64 Ki-row batches) against the
    /// codec path reading every column, from a file on disk (page cache) and from a stream in memory; selecting every
    /// column against no projection.
    /// </summary>
    [MemoryDiagnoser]
    public class ProjectionBenchmarks
    {
        private static readonly string[] TwoColumns = { "c004_4", "c015_7" };
        private string _filePath = null!;
        private byte[] _stream = null!;
        private Lz4FastCodecFactory _codec = null!;

        // Made once per process: an in-process run (and the CI smoke run) sets up every benchmark of the class in turn.
        private static readonly Lazy<(byte[] File, byte[] Stream)> s_table = new Lazy<(byte[], byte[])>(() =>
        {
            List<RecordBatch> batches = WideTable.Batches(batches: 4, rowsPerBatch: WideTable.FeatherRowsPerBatch);
            (byte[], byte[]) written = (WideTable.Write(batches, file: true), WideTable.Write(batches, file: false));
            foreach (RecordBatch batch in batches)
                batch.Dispose();
            return written;
        });

        [GlobalSetup]
        public void Setup()
        {
            _filePath = Path.Combine(Path.GetTempPath(), $"arrowlz4fast-wide-{Environment.ProcessId}.feather");
            File.WriteAllBytes(_filePath, s_table.Value.File);
            _stream = s_table.Value.Stream;
            _codec = new Lz4FastCodecFactory();
        }

        [GlobalCleanup]
        public void Cleanup() => File.Delete(_filePath);

        [Benchmark(Baseline = true, Description = "file: codec path, every column")]
        public long FileCodecAll()
        {
            using FileStream file = File.OpenRead(_filePath);
            using var reader = new ArrowFileReader(file, _codec);
            return Drain(reader);
        }

        [Benchmark(Description = "stream: codec path, every column")]
        public long StreamCodecAll()
        {
            using var reader = new ArrowStreamReader(new MemoryStream(_stream, writable: false), _codec);
            return Drain(reader);
        }

        [Benchmark(Description = "file: IpcDecompressingStream, two columns (FileStream)")]
        public long FileProjectedTwo()
        {
            var options = new Lz4FastOptions { Projection = IpcProjection.ByName(TwoColumns) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(_filePath), options), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        [Benchmark(Description = "stream: IpcDecompressingStream, two columns (memory)")]
        public long StreamProjectedTwo()
        {
            var options = new Lz4FastOptions { Projection = IpcProjection.ByName(TwoColumns) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(_stream.AsMemory(), options), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        [Benchmark(Description = "stream: IpcDecompressingStream, no projection")]
        public long StreamWrapperAll()
        {
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(_stream.AsMemory()), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        [Benchmark(Description = "stream: IpcDecompressingStream, every column selected")]
        public long StreamWrapperSelectAll()
        {
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(AllColumns) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(_stream.AsMemory(), options), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        [Benchmark(Description = "file: IpcDecompressingStream, no projection (FileStream)")]
        public long FileWrapperAll()
        {
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(_filePath)), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        [Benchmark(Description = "file: IpcDecompressingStream, every column selected (FileStream)")]
        public long FileWrapperSelectAll()
        {
            var options = new Lz4FastOptions { Projection = IpcProjection.ByIndex(AllColumns) };
            using var reader = new ArrowStreamReader(new IpcDecompressingStream(File.OpenRead(_filePath), options), SlabMemoryAllocator.Shared);
            return Drain(reader);
        }

        private static readonly int[] AllColumns = System.Linq.Enumerable.ToArray(System.Linq.Enumerable.Range(0, WideTable.Columns));

        internal static long Drain(ArrowStreamReader reader)
        {
            long rows = 0;
            while (true)
            {
                using RecordBatch? batch = reader.ReadNextRecordBatch();
                if (batch is null)
                    return rows;
                rows += batch.Length + batch.ColumnCount;
            }
        }
    }
}
