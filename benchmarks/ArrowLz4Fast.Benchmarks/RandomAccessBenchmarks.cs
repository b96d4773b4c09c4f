using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using ArrowLz4Fast.Benchmarks.Harness;
using ArrowLz4Fast.Memory;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// Batch <i>i</i> of a 100-batch, 200-column LZ4 Feather-shaped file on disk (page cache), two columns, through
    /// <see cref="Lz4ArrowFileReader"/> opened for each read (footer, schema, the batch) and opened once (the batch
    /// alone), against reading the file up to batch <i>i</i> through <see cref="ArrowFileReader"/> with the package's
    /// codec, every column (issue #46's target: 50x sooner), and against the decode-only ceiling: the two columns'
    /// buffers read at their offsets and decoded (<see cref="RandomAccessCeiling"/>), which the reader opened once
    /// should approach.
    /// </summary>
    /// <remarks>
    /// The table is <see cref="WideTable"/> with 2,048 rows per batch (a thirty-second of Feather's 64 Ki, so that the
    /// file stays a few hundred MB at most): ten distinct batches written ten times over, in order, so generating it
    /// holds ten batches in memory, not a hundred. Reading a batch costs what it costs whichever of the ten it is.
    /// </remarks>
    [MemoryDiagnoser]
    public class RandomAccessBenchmarks
    {
        private const int Batches = 100;
        private const int Distinct = 10;
        private const int RowsPerBatch = 2048;
        private static readonly string[] TwoColumns = { "c004_4", "c015_7" };

        private string _filePath = null!;
        private Lz4FastCodecFactory _codec = null!;
        private Lz4FastOptions _twoColumns = null!;
        private Lz4ArrowFileReader _opened = null!;
        private RandomAccessCeiling _ceiling = null!;

        // Made once per process: an in-process run (and the CI smoke run) sets up every benchmark of the class in turn.
        private static readonly Lazy<byte[]> s_file = new Lazy<byte[]>(() =>
        {
            List<RecordBatch> distinct = WideTable.Batches(Distinct, RowsPerBatch);
            byte[] file = WideTable.Write(Enumerable.Range(0, Batches).Select(b => distinct[b % Distinct]).ToList(), file: true);
            foreach (RecordBatch batch in distinct)
                batch.Dispose();
            return file;
        });

        /// <summary>The batch read: the middle one and the last one.</summary>
        [Params(50, 99)]
        public int Index { get; set; }

        [GlobalSetup]
        public void Setup()
        {
            _filePath = Path.Combine(Path.GetTempPath(), $"arrowlz4fast-random-access-{Environment.ProcessId}.feather");
            File.WriteAllBytes(_filePath, s_file.Value);
            Console.WriteLine($"// RandomAccessBenchmarks: {Batches} batches of {RowsPerBatch} rows x {WideTable.Columns} columns, {s_file.Value.Length:N0} bytes");
            _codec = new Lz4FastCodecFactory();
            _twoColumns = new Lz4FastOptions { Projection = IpcProjection.ByName(TwoColumns) };
            _opened = new Lz4ArrowFileReader(_filePath, _twoColumns, SlabMemoryAllocator.Shared);
            _ceiling = new RandomAccessCeiling(_filePath, Index, WideTable.Schema, TwoColumns);
            // The ceiling decodes what the reader serves: the two columns' buffers, padded to 64 bytes each.
            using (RecordBatch batch = _opened.ReadRecordBatch(Index))
                if (batch.ColumnCount != TwoColumns.Length || batch.Length != RowsPerBatch || _ceiling.Read() == 0)
                    throw new InvalidOperationException("the opened reader or the ceiling read something else");
        }

        [GlobalCleanup]
        public void Cleanup()
        {
            if (_interleaved.Enough)
                Console.WriteLine(FormattableString.Invariant($"// interleaved random access: batch {Index}: {_interleaved.Operations} operations; medians opened once {_interleaved.MedianMicroseconds(0):F3} us, ceiling {_interleaved.MedianMicroseconds(1):F3} us; per operation ceiling/opened once {_interleaved.MedianRatio(1, 0):F3}"));
            if (_scan.Enough)
                Console.WriteLine(FormattableString.Invariant($"// interleaved scan: {Batches} batches, two columns, one reader: {_scan.Operations} operations; medians one thread {_scan.MedianMicroseconds(0):F3} us, two threads at once {_scan.MedianMicroseconds(1):F3} us; per operation one thread/two threads {_scan.MedianRatio(0, 1):F3}"));
            _opened.Dispose();
            _ceiling.Dispose();
            File.Delete(_filePath);
        }

        [Benchmark(Baseline = true, Description = "codec path (ArrowFileReader), every column, batches 0..i")]
        public long CodecUpToBatch()
        {
            using FileStream file = File.OpenRead(_filePath);
            using var reader = new ArrowFileReader(file, _codec);
            long rows = 0;
            for (int i = 0; i <= Index; i++)
            {
                using RecordBatch batch = reader.ReadNextRecordBatch();
                rows += batch.Length + batch.ColumnCount;
            }
            return rows;
        }

        [Benchmark(Description = "Lz4ArrowFileReader, two columns, batch i")]
        public long RandomAccessTwoColumns()
        {
            using var reader = new Lz4ArrowFileReader(_filePath, _twoColumns, SlabMemoryAllocator.Shared);
            using RecordBatch batch = reader.ReadRecordBatch(Index);
            return batch.Length + batch.ColumnCount;
        }

        [Benchmark(Description = "Lz4ArrowFileReader opened once, two columns, batch i")]
        public long OpenedOnceTwoColumns()
        {
            using RecordBatch batch = _opened.ReadRecordBatch(Index);
            return batch.Length + batch.ColumnCount;
        }

        [Benchmark(Description = "ceiling: the two columns' bytes read at their offsets and decoded")]
        public long CeilingTwoColumns() => _ceiling.Read();

        /// <summary>
        /// The reader opened once and the ceiling one after the other in each operation (<see cref="InterleavedTimes"/>);
        /// the cleanup prints their medians and the per-operation share as <c>// interleaved random access: …</c>.
        /// </summary>
        [Benchmark(Description = "interleaved: opened once and the ceiling in turn")]
        public long Interleaved() => _interleaved.Run(_paths ??= new Func<long>[] { OpenedOnceTwoColumns, CeilingTwoColumns });

        private readonly InterleavedTimes _interleaved = new InterleavedTimes(2);
        private Func<long>[]? _paths;

        /// <summary>
        /// Every batch, two columns, from the one reader opened once: on one thread, then on two threads at once (the
        /// calling one and a pool thread, each taking the next batch), in turn within each operation; the cleanup
        /// prints their medians and the per-operation speed-up as <c>// interleaved scan: …</c>. Each batch's body is
        /// too small to decode on two threads, so the second thread is what concurrent reads of one reader add.
        /// </summary>
        [Benchmark(Description = "interleaved: every batch on one thread, then on two at once, one reader")]
        public long InterleavedScan() => _scan.Run(_scanPaths ??= new Func<long>[] { ScanOneThread, ScanTwoThreads });

        private readonly InterleavedTimes _scan = new InterleavedTimes(2);
        private Func<long>[]? _scanPaths;
        private int _next;

        private long ScanOneThread()
        {
            long rows = 0;
            for (int i = 0; i < Batches; i++)
            {
                using RecordBatch batch = _opened.ReadRecordBatch(i);
                rows += batch.Length;
            }
            return rows;
        }

        private long ScanTwoThreads()
        {
            _next = -1;
            System.Threading.Tasks.Task<long> other = System.Threading.Tasks.Task.Run(ScanShare);
            long rows = ScanShare();
            return rows + other.GetAwaiter().GetResult();
        }

        private long ScanShare()
        {
            long rows = 0;
            for (int i; (i = System.Threading.Interlocked.Increment(ref _next)) < Batches;)
            {
                using RecordBatch batch = _opened.ReadRecordBatch(i);
                rows += batch.Length;
            }
            return rows;
        }

        [Benchmark(Description = "Lz4ArrowFileReader, every column, batch i")]
        public long RandomAccessAllColumns()
        {
            using var reader = new Lz4ArrowFileReader(_filePath, null, SlabMemoryAllocator.Shared);
            using RecordBatch batch = reader.ReadRecordBatch(Index);
            return batch.Length + batch.ColumnCount;
        }
    }
}
