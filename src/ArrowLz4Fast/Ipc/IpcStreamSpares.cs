using System;
using System.Buffers;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// What a disposed <see cref="IpcDecompressingStream"/> leaves to the next one made on the same thread: its schema
    /// layouts, its whole-body source, its decoder when it had the default settings, and its small pooled arrays (the
    /// buffer items, the schema's copy). Making and disposing a stream is a visible share of a one-batch stream's read,
    /// and these would otherwise be allocated or rented again for each stream. Only a stream made while the thread has
    /// none waiting takes them (one at a time: no lock); the large metadata and body arrays still come from the pool,
    /// so that a thread keeps no more than a few kilobytes here.
    /// </summary>
    internal sealed class IpcStreamSpares
    {
        // Longer arrays go back to the pool: kept here they would outlive their need on every thread that read once.
        private const int MaxKeptItems = 1024;
        private const int MaxKeptSchema = 16384;

        [ThreadStatic]
        private static IpcStreamSpares? t_waiting;

        private IpcStreamSpares()
        {
        }

        /// <summary>The layouts a stream checks its batches against; reset when taken.</summary>
        public IpcStreamLayouts Layouts { get; } = new IpcStreamLayouts();

        /// <summary>The source of a body that is all there; cleared when left.</summary>
        public IpcBodySource WholeBody { get; } = new IpcBodySource();

        /// <summary>A decoder made with the default settings, or null; released (its arrays returned) when left.</summary>
        public IpcBodyDecoder? DefaultDecoder { get; set; }

        /// <summary>A pooled array of buffer items, or empty.</summary>
        public IpcBufferItem[] Items { get; private set; } = Array.Empty<IpcBufferItem>();

        /// <summary>A pooled array for the schema's copy, or empty.</summary>
        public byte[] Schema { get; private set; } = Array.Empty<byte>();

        /// <summary>The parts this thread's last disposed stream left, or new ones; the arrays pass to the caller.</summary>
        public static IpcStreamSpares Take(out IpcBufferItem[] items, out byte[] schema)
        {
            IpcStreamSpares? spares = t_waiting;
            if (spares is null)
            {
                spares = new IpcStreamSpares();
            }
            else
            {
                t_waiting = null;
                spares.Layouts.Reset();
            }
            items = spares.Items;
            schema = spares.Schema;
            spares.Items = Array.Empty<IpcBufferItem>();
            spares.Schema = Array.Empty<byte>();
            return spares;
        }

        /// <summary>
        /// Leaves these parts, with a disposed stream's arrays, to the next stream made on this thread (the disposing
        /// one); when one waits already, the arrays go back to the pool.
        /// </summary>
        public void Leave(IpcBufferItem[] items, byte[] schema)
        {
            WholeBody.Clear();
            DefaultDecoder?.Release();
            if (t_waiting is not null)
            {
                ReturnItems(items);
                ReturnSchema(schema);
                return;
            }
            if (items.Length > MaxKeptItems)
            {
                ReturnItems(items);
                items = Array.Empty<IpcBufferItem>();
            }
            if (schema.Length > MaxKeptSchema)
            {
                ReturnSchema(schema);
                schema = Array.Empty<byte>();
            }
            Items = items;
            Schema = schema;
            t_waiting = this;
        }

        private static void ReturnItems(IpcBufferItem[] items)
        {
            if (items.Length > 0)
                ArrayPool<IpcBufferItem>.Shared.Return(items);
        }

        private static void ReturnSchema(byte[] schema)
        {
            if (schema.Length > 0)
                ArrayPool<byte>.Shared.Return(schema);
        }
    }
}
