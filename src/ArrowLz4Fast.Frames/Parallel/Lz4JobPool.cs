using System;
using System.Threading;

namespace ArrowLz4Fast.Frames
{
    /// <summary>A small lock-free pool of job objects, so a parallel call allocates no state of its own.</summary>
    /// <typeparam name="T">The job type.</typeparam>
    internal static class Lz4JobPool<T>
        where T : class, new()
    {
        private static readonly T?[] s_items = new T?[Math.Max(4, Environment.ProcessorCount * 2)];

        public static T Rent()
        {
            T?[] items = s_items;
            for (int i = 0; i < items.Length; i++)
            {
                T? item = Interlocked.Exchange(ref items[i], null);
                if (item != null)
                    return item;
            }
            return new T();
        }

        public static void Return(T item)
        {
            T?[] items = s_items;
            for (int i = 0; i < items.Length; i++)
            {
                if (Interlocked.CompareExchange(ref items[i], item, null) == null)
                    return;
            }
        }
    }
}
