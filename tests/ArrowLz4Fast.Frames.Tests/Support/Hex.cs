using System;
using System.Security.Cryptography;

namespace ArrowLz4Fast.Tests.Support
{
    internal static class Hex
    {
        public static string Sha256(ReadOnlySpan<byte> data) => Convert.ToHexString(SHA256.HashData(data)).ToLowerInvariant();
    }
}
