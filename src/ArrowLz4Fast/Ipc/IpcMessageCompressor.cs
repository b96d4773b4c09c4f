using System;

namespace ArrowLz4Fast.Ipc
{
    // PLACEHOLDER until branch flightw33's IpcMessageCompressor is merged (its file replaces this one): passes every
    // message through unchanged.
    internal static class IpcMessageCompressor
    {
        internal static bool TryCompress(ReadOnlySpan<byte> metadata, ReadOnlySpan<byte> body, Lz4FastOptions options,
            double minSpaceSavings, out ReadOnlyMemory<byte> compressedMetadata, out ReadOnlyMemory<byte> compressedBody)
        {
            compressedMetadata = default;
            compressedBody = default;
            return false;
        }
    }
}
