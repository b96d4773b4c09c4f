using System;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>
    /// The cheapest pre-scan that finds a match with offset 0 in an LZ4 block: token, literal length, skip the
    /// literals, read the offset, skip the match length. No copies. A candidate design measured in
    /// <see cref="CodecBenchmarks"/>; the project decodes with its own block decoder instead.
    /// </summary>
    internal static class SequenceScan
    {
        public static bool HasOffsetZero(ReadOnlySpan<byte> block)
        {
            int ip = 0;
            int end = block.Length;
            while (ip < end)
            {
                int token = block[ip++];
                int literals = token >> 4;
                if (literals == 15)
                {
                    int b;
                    do
                    {
                        if (ip >= end)
                            return false;
                        b = block[ip++];
                        literals += b;
                    }
                    while (b == 255);
                }
                ip += literals;
                if (ip + 2 > end)
                    return false; // the last sequence has literals only
                int offset = block[ip] | (block[ip + 1] << 8);
                if (offset == 0)
                    return true;
                ip += 2;
                if ((token & 15) == 15)
                {
                    int b;
                    do
                    {
                        if (ip >= end)
                            return false;
                        b = block[ip++];
                    }
                    while (b == 255);
                }
            }
            return false;
        }
    }
}
