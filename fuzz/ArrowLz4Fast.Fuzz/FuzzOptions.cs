using System;
using System.IO;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>Command line: <c>[--seed S] [--count N] [--start I] [--index I] [--threads T] [--out DIR] [--examples K] [--no-minimize] [--parallel] [--encode] [--stream] [--ipc [--schema-only] [--project]] [--flight]</c>.</summary>
    internal sealed class FuzzOptions
    {
        /// <summary>The seed CI runs: a fixed slice, so a red CI run names a mutant anyone can regenerate.</summary>
        public const ulong DefaultSeed = 20261123;

        public ulong Seed { get; private set; } = DefaultSeed;

        public long Count { get; private set; } = 200_000;

        public long Start { get; private set; }

        public long? Index { get; private set; }

        public int Threads { get; private set; } = Math.Max(1, Environment.ProcessorCount);

        public string OutDir { get; private set; } = Path.Combine("artifacts", "fuzz-findings");

        public int Examples { get; private set; } = 3;

        public bool Minimize { get; private set; } = true;

        /// <summary>Decode with parallel block decode forced on, and compare every result with the sequential decoder's.</summary>
        public bool Parallel { get; private set; }

        /// <summary>Check the block encoder instead: compress mutants (and what liblz4 decodes them to) with it and with liblz4.</summary>
        public bool Encode { get; private set; }

        /// <summary>Check the decoding stream instead: random read sizes over randomly chunked input, against liblz4 and the span decoder.</summary>
        public bool Stream { get; private set; }
        /// <summary>Fuzz IpcDecompressingStream instead: mutants of the corpus IPC streams (fuzz/README.md, --ipc).</summary>
        public bool Ipc { get; private set; }

        /// <summary>Fuzz random access to IPC files instead (Lz4ArrowFileReader): mutants of their footers and messages (fuzz/README.md, --ipc-file).</summary>
        public bool IpcFile { get; private set; }

        /// <summary>Fuzz IpcCompressingStream instead: mutants of the corpus IPC streams written into it uncompressed (fuzz/README.md, --ipc-write).</summary>
        public bool IpcWrite { get; private set; }

        /// <summary>With --ipc: every mutant changes the Schema message only (a campaign over the schema checks).</summary>
        public bool SchemaOnly { get; private set; }

        /// <summary>With --ipc: every mutant is read with a random projection of the seed's fields (fuzz/README.md, --ipc --project).</summary>
        public bool Project { get; private set; }

        /// <summary>Fuzz the Flight interceptors' decoding instead: mutated FlightData, both directions (fuzz/README.md, --flight).</summary>
        public bool Flight { get; private set; }

        public static FuzzOptions Parse(string[] args)
        {
            var options = new FuzzOptions();
            for (int i = 0; i < args.Length; i++)
            {
                string value() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value");
                switch (args[i])
                {
                    case "--seed": options.Seed = ulong.Parse(value()); break;
                    case "--count": options.Count = long.Parse(value()); break;
                    case "--start": options.Start = long.Parse(value()); break;
                    case "--index": options.Index = long.Parse(value()); break;
                    case "--threads": options.Threads = Math.Max(1, int.Parse(value())); break;
                    case "--out": options.OutDir = value(); break;
                    case "--examples": options.Examples = int.Parse(value()); break;
                    case "--no-minimize": options.Minimize = false; break;
                    case "--parallel": options.Parallel = true; break;
                    case "--encode": options.Encode = true; break;
                    case "--stream": options.Stream = true; break;
                    case "--ipc": options.Ipc = true; break;
                    case "--ipc-write": options.IpcWrite = true; break;
                    case "--ipc-file": options.IpcFile = true; break;
                    case "--flight": options.Flight = true; break;
                    case "--schema-only": options.SchemaOnly = true; break;
                    case "--project": options.Project = true; break;
                    default: throw new ArgumentException($"unknown option {args[i]}; see fuzz/README.md");
                }
            }
            return options;
        }

        public static string RepositoryRoot() => CorpusLocator.RepositoryRoot;
    }
}
