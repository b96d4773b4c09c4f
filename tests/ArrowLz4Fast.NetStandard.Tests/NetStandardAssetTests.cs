using System.Linq;
using System.Reflection;
using System.Runtime.Versioning;
using ArrowLz4Fast.Frames;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>The linked suite in this project runs against the netstandard2.0 build of the library, not net8.0.</summary>
    public class NetStandardAssetTests
    {
        [Fact]
        public void The_library_under_test_is_the_netstandard2_0_build()
        {
            foreach (Assembly assembly in new[] { typeof(Lz4FastCodec).Assembly, typeof(Lz4FrameDecoder).Assembly }.Distinct())
            {
                string? framework = assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName;
                Assert.Equal(".NETStandard,Version=v2.0", framework);
            }
        }

        [Fact]
        public void Apache_Arrow_is_the_version_this_run_was_built_for()
        {
            string expected = typeof(NetStandardAssetTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "ArrowVersion").Value!;
            string? loaded = typeof(Apache.Arrow.RecordBatch).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
            Assert.NotNull(loaded);
            Assert.StartsWith(expected, loaded, System.StringComparison.Ordinal);
        }
    }
}
