#if NET
using System;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast
{
    /// <summary>The span and ValueTask overloads .NET 8 streams have, so Arrow's writer hands each buffer over with one call.</summary>
    public sealed partial class IpcCompressingStream
    {
        /// <summary>Takes uncompressed IPC bytes; a write that completes a batch starts its compression and returns.</summary>
        /// <param name="buffer">The bytes.</param>
        public override void Write(ReadOnlySpan<byte> buffer) => WriteCore(buffer);

        /// <summary>Takes uncompressed IPC bytes; the compressed messages they complete are written asynchronously.</summary>
        /// <param name="buffer">The bytes.</param>
        /// <param name="cancellationToken">Cancels the output's writes.</param>
        /// <returns>The write.</returns>
#pragma warning disable RS0027 // The default is Stream.WriteAsync(ReadOnlyMemory<byte>, CancellationToken)'s.
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => WriteAsyncCore(buffer, cancellationToken);
#pragma warning restore RS0027

        /// <summary>Compresses and writes what is left asynchronously, then disposes the output unless it is to be left open.</summary>
        /// <returns>The disposal.</returns>
        public override async ValueTask DisposeAsync()
        {
            try
            {
                if (!_disposed && _failure is null)
                {
                    Guard(Drain);
                    await WritePendingOutputAsync(default).ConfigureAwait(false);
                }
            }
            finally
            {
                // The rest (the end check, the flush, giving arrays back) is Dispose's; nothing is left to write.
                await base.DisposeAsync().ConfigureAwait(false);
            }
        }
    }
}
#endif
