using System.Reflection;
using System.Runtime.Versioning;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The linked suite in this project runs against the netstandard2.0 build of ArrowLz4Fast.Frames, not net8.0, and without Apache.Arrow.</summary>
    public class NetStandardAssetTests
    {
        [Fact]
        public void The_library_under_test_is_the_netstandard2_0_build()
        {
            string? framework = typeof(Lz4FrameDecoder).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName;
            Assert.Equal(".NETStandard,Version=v2.0", framework);
        }
    }
}
