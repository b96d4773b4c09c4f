using System;
using System.Globalization;

namespace ArrowLz4Fast.Benchmarks.Harness
{
    /// <summary>The probes' <c>--name value</c> options.</summary>
    internal static class ProbeOptions
    {
        /// <summary>The integer after <paramref name="name"/>, or <paramref name="fallback"/> when the option or its value is missing.</summary>
        public static int Option(string[] args, string name, int fallback)
        {
            string? value = OptionString(args, name);
            return value is null ? fallback : int.Parse(value, CultureInfo.InvariantCulture);
        }

        /// <summary>The value after <paramref name="name"/>, or null when the option or its value is missing.</summary>
        public static string? OptionString(string[] args, string name)
        {
            int at = Array.IndexOf(args, name);
            return at >= 0 && at + 1 < args.Length ? args[at + 1] : null;
        }
    }
}
