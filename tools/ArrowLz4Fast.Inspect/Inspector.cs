using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace ArrowLz4Fast.Inspect
{
    /// <summary>The arrow-lz4 command: arguments, reading the input, and exit codes.</summary>
    internal static class Inspector
    {
        public const int Ok = 0;
        public const int VerificationFailed = 1;
        public const int BadInput = 2;
        public const int Usage = 64;

        private const string UsageText =
            "usage: arrow-lz4 FILE [--json] [--verify]\n"
            + "  Profiles the LZ4 frames of an Arrow IPC stream (.arrows) or file (.arrow): per message and buffer the codec,\n"
            + "  sizes, frame profile and the path ArrowLz4Fast takes.\n"
            + "  --json    machine-readable output\n"
            + "  --verify  decode every LZ4 buffer with ArrowLz4Fast and with the official decoder and compare; read the\n"
            + "            whole input with Apache.Arrow; exit code 1 on any difference";

        public static int Run(string[] args, TextWriter stdout, TextWriter stderr)
        {
            bool json = false, verify = false;
            string? path = null;
            foreach (string arg in args)
            {
                switch (arg)
                {
                    case "--json": json = true; break;
                    case "--verify": verify = true; break;
                    case "-h" or "--help":
                        stdout.WriteLine(UsageText);
                        return Ok;
                    default:
                        if (arg.StartsWith("--", StringComparison.Ordinal) || path != null)
                        {
                            stderr.WriteLine($"arrow-lz4: unexpected argument '{arg}'");
                            stderr.WriteLine(UsageText);
                            return Usage;
                        }
                        path = arg;
                        break;
                }
            }
            if (path == null)
            {
                stderr.WriteLine(UsageText);
                return Usage;
            }

            byte[] data;
            try
            {
                data = File.ReadAllBytes(path);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                stderr.WriteLine($"arrow-lz4: {path}: {(e is FileNotFoundException or DirectoryNotFoundException ? "no such file" : e.Message)}");
                return BadInput;
            }

            Inspection inspection;
            try
            {
                inspection = Inspect(path, data, verify);
            }
            catch (InspectException e)
            {
                stderr.WriteLine($"arrow-lz4: {path}: {e.Message}");
                return BadInput;
            }

            if (json)
                JsonReport.Write(inspection, stdout);
            else
                TextReport.Write(inspection, stdout);

            if (inspection.AllBuffers.Any(b => b.Path == BufferPath.Corrupt))
                return BadInput;
            if (verify && (inspection.VerificationFailures > 0 || inspection.ArrowRead?.Error != null))
                return VerificationFailed;
            return Ok;
        }

        internal static Inspection Inspect(string path, byte[] data, bool verify)
        {
            bool fileFormat = IpcMessageReader.IsFileFormat(data);
            List<IpcMessage> messages = IpcMessageReader.ReadAll(data);
            SchemaCheck.Verify(data, messages);
            var buffers = new List<IReadOnlyList<BufferReport>>(messages.Count);
            foreach (IpcMessage message in messages)
            {
                var reports = message.Buffers.Select(b => BufferReport.Of(message, b, data)).ToList();
                if (verify)
                {
                    foreach (BufferReport report in reports)
                        Verifier.VerifyBuffer(report, data);
                }
                buffers.Add(reports);
            }
            var inspection = new Inspection(path, fileFormat, messages, buffers);
            if (verify)
                inspection.ArrowRead = Verifier.ReadWithArrow(data, fileFormat);
            return inspection;
        }
    }
}
