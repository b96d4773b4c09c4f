using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>
    /// Tests that observe process-wide state (the Meter's listeners, the thread's allocation counter under load) run
    /// alone, so another test's decodes cannot show up in their counts.
    /// </summary>
    [CollectionDefinition(Name, DisableParallelization = true)]
    public sealed class SerialTests
    {
        public const string Name = "serial";
    }
}
