using System;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>Delta debugging: removes ever smaller chunks, then zeroes bytes, while the finding persists.</summary>
    internal static class Minimizer
    {
        public static byte[] Minimize(byte[] data, Func<byte[], bool> stillFails, int budget = 4000)
        {
            byte[] best = data;
            for (int chunk = Math.Max(1, best.Length / 2); chunk >= 1 && budget > 0; chunk /= 2)
            {
                bool progress;
                do
                {
                    progress = false;
                    for (int at = 0; at + chunk <= best.Length && budget-- > 0;)
                    {
                        byte[] candidate = new byte[best.Length - chunk];
                        best.AsSpan(0, at).CopyTo(candidate);
                        best.AsSpan(at + chunk).CopyTo(candidate.AsSpan(at));
                        if (stillFails(candidate))
                        {
                            best = candidate;
                            progress = true;
                        }
                        else
                        {
                            at += chunk;
                        }
                    }
                }
                while (progress && budget > 0);
            }
            for (int at = 0; at < best.Length && budget-- > 0; at++)
            {
                if (best[at] == 0)
                    continue;
                byte[] candidate = (byte[])best.Clone();
                candidate[at] = 0;
                if (stillFails(candidate))
                    best = candidate;
            }
            return best;
        }
    }
}
