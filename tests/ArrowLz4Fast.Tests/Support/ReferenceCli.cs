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

        /// <summary>Runs <c>lz4 -d</c> on <paramref name="frame"/>: its exit code, output and error text.</summary>
        public static (int ExitCode, byte[] Output, string Errors) Run(byte[] frame)
        {
            var start = new ProcessStartInfo("lz4", "-d -c -q")
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
            process.StandardInput.BaseStream.Write(frame);
            process.StandardInput.Close();
            copy.Wait();
            process.WaitForExit();
            return (process.ExitCode, output.ToArray(), errors.Result);
        }
    }
}
