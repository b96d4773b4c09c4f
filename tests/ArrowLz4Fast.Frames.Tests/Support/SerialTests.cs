using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Tests that observe or change process-wide state (the allocator gauges, the process's allocation counter, the
    /// thread pool's limits, finalization) run alone, so another test cannot show up in what they measure.
    /// </summary>
    [CollectionDefinition(Name, DisableParallelization = true)]
    public sealed class SerialTests
    {
        public const string Name = "serial";
    }
}
