using System;
using System.Collections.Generic;

namespace ArrowLz4Fast.Memory
{
    /// <summary>
    /// The live <see cref="SlabMemoryAllocator"/> instances, held weakly, for the meter's observable gauges: they report
    /// the sum over every allocator of the process. An allocator nobody references any more drops out.
    /// </summary>
    internal static class SlabAllocatorRegistry
    {
        private static readonly List<WeakReference<SlabMemoryAllocator>> s_allocators = new();

        public static void Register(SlabMemoryAllocator allocator)
        {
            lock (s_allocators)
            {
                s_allocators.RemoveAll(static w => !w.TryGetTarget(out _));
                s_allocators.Add(new WeakReference<SlabMemoryAllocator>(allocator));
            }
            ArrowLz4FastMetrics.EnsureMemoryInstruments();
        }

        public static long Sum(Func<SlabMemoryAllocator, long> measure)
        {
            long total = 0;
            lock (s_allocators)
            {
                foreach (WeakReference<SlabMemoryAllocator> reference in s_allocators)
                {
                    if (reference.TryGetTarget(out SlabMemoryAllocator? allocator))
                        total += measure(allocator);
                }
            }
            return total;
        }
    }
}
