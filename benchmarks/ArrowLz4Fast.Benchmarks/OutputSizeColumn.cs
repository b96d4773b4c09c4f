using System.Collections.Concurrent;
using System.Linq;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>Adds the written stream's size and its compression ratio to the writer tables.</summary>
    public sealed class OutputSizeConfig : ManualConfig
    {
        public OutputSizeConfig()
        {
            AddColumn(new OutputSizeColumn(ratio: false), new OutputSizeColumn(ratio: true));
        }
    }

    /// <summary>
    /// Computed in the host process by writing the same table the benchmark writes, since BenchmarkDotNet's
    /// measurements are times and allocations only.
    /// </summary>
    public sealed class OutputSizeColumn : IColumn
    {
        private static readonly ConcurrentDictionary<string, long> Sizes = new();
        private static readonly long Uncompressed = SyntheticTable.UncompressedBytes(SyntheticTable.Batches());
        private readonly bool _ratio;

        public OutputSizeColumn(bool ratio) => _ratio = ratio;

        public string Id => _ratio ? "LZ4Ratio" : "OutputSize";

        public string ColumnName => _ratio ? "Compression" : "Output";

        public bool AlwaysShow => true;

        public ColumnCategory Category => ColumnCategory.Custom;

        public int PriorityInCategory => _ratio ? 1 : 0;

        public bool IsNumeric => true;

        public UnitType UnitType => _ratio ? UnitType.Dimensionless : UnitType.Size;

        public string Legend => _ratio
            ? "Uncompressed Arrow buffer bytes / written stream bytes"
            : "Bytes written: the IPC stream (writer), or the length-prefixed buffers of the table (block sizes)";

        public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

        public bool IsAvailable(Summary summary) => true;

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
        {
            string method = benchmarkCase.Descriptor.WorkloadMethod.Name;
            object? blockSize = benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == "BlockSize")?.Value;
            string key = blockSize is int size ? $"block:{size}" : $"method:{method}";
            long bytes = Sizes.GetOrAdd(key, _ => blockSize is int s
                ? BlockSizeBenchmarks.Output(s)
                : WriterBenchmarks.Output(method).LongLength);
            return _ratio ? $"{(double)Uncompressed / bytes:0.00}x" : $"{bytes / 1048576.0:0.00} MiB";
        }
    }
}
