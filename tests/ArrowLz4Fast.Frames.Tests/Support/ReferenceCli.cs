using System;
using System.Diagnostics;
using System.IO;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    /// <summary>The reference lz4 command-line tool (Debian package lz4; .ci/run installs it).</summary>
    internal static class ReferenceCli
    {
        public static bool Available { get; } = Probe();

        /// <summary>
        /// Why a test that runs the CLI is skipped, or null when it runs: skipped on a machine without the CLI, so a
        /// fresh clone with only the .NET SDK tests itself; under <c>CI=true</c> it always runs, and a missing CLI fails.
        /// </summary>
        public static string? SkipReason
        {
            get
            {
                bool ci = string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);
                return ci || Available ? null : "the reference lz4 CLI is not installed (apt-get install lz4)";
            }
        }

        private static bool Probe()
        {
            try
            {
                using Process? process = Process.Start(new ProcessStartInfo("lz4", "--version")
                {
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                    UseShellExecute = false,
                });
                if (process is null)
                    return false;
                process.StandardOutput.ReadToEnd();
                process.WaitForExit();
                return process.ExitCode == 0;
            }
            catch (System.ComponentModel.Win32Exception)
            {
                return false;
            }
        }

        public static byte[] Decompress(byte[] frame)
        {
            (int exitCode, byte[] output, string errors) = Run(frame);
            Assert.True(exitCode == 0, $"lz4 -d failed ({exitCode}): {errors}");
            return output;
        }

        /// <summary>Runs <c>lz4 -c -q FLAGS</c> on <paramref name="payload"/>: the frame it writes.</summary>
        public static byte[] Compress(byte[] payload, string flags)
        {
            (int exitCode, byte[] output, string errors) = Run("-c -q " + flags, payload);
            Assert.True(exitCode == 0, $"lz4 {flags} failed: {errors}");
            return output;
        }

        /// <summary>Runs <c>lz4 -d</c> on <paramref name="frame"/>: its exit code, output and error text.</summary>
        public static (int ExitCode, byte[] Output, string Errors) Run(byte[] frame) => Run("-d -c -q", frame);

        private static (int ExitCode, byte[] Output, string Errors) Run(string arguments, byte[] input)
        {
            var start = new ProcessStartInfo("lz4", arguments)
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using Process process = Process.Start(start) ?? throw new InvalidOperationException("could not start lz4");
            var output = new MemoryStream();
            var copy = process.StandardOutput.BaseStream.CopyToAsync(output);
            var errors = process.StandardError.ReadToEndAsync();
            process.StandardInput.BaseStream.Write(input);
            process.StandardInput.Close();
            copy.Wait();
            process.WaitForExit();
            return (process.ExitCode, output.ToArray(), errors.Result);
        }
    }

    /// <summary>A fact that runs the reference <c>lz4</c> CLI; see <see cref="ReferenceCli.SkipReason"/>.</summary>
    public sealed class Lz4CliFactAttribute : FactAttribute
    {
        public Lz4CliFactAttribute() => Skip = ReferenceCli.SkipReason;
    }

    /// <summary>A theory that runs the reference <c>lz4</c> CLI; see <see cref="ReferenceCli.SkipReason"/>.</summary>
    public sealed class Lz4CliTheoryAttribute : TheoryAttribute
    {
        public Lz4CliTheoryAttribute() => Skip = ReferenceCli.SkipReason;
    }
}
