#if NET
using System;
using System.Threading;
using System.Threading.Tasks;

namespace ArrowLz4Fast
{
    /// <summary>The span and ValueTask overloads .NET 8 streams have, so Arrow's reader reads a body with one call.</summary>
    public sealed partial class IpcDecompressingStream
    {
        /// <summary>Reads decompressed IPC bytes; a read of a whole body decodes straight into <paramref name="buffer"/>.</summary>
        /// <param name="buffer">The destination.</param>
        /// <returns>The number of bytes read; 0 at the end of the IPC stream.</returns>
        public override int Read(Span<byte> buffer) => ReadCore(buffer);

        /// <summary>Reads decompressed IPC bytes asynchronously; a read of a whole body decodes straight into <paramref name="buffer"/>.</summary>
        /// <param name="buffer">The destination.</param>
        /// <param name="cancellationToken">Cancels the read.</param>
        /// <returns>The number of bytes read; 0 at the end of the IPC stream.</returns>
#pragma warning disable RS0027 // The default is Stream.ReadAsync(Memory<byte>, CancellationToken)'s, so that ReadAsync(memory) compiles on this type.
        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ReadAsyncCore(buffer, cancellationToken);
#pragma warning restore RS0027
    }
}
#endif
