using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// Which owner groups reach the finalizer. A group waiting for its finalizer is one whose short weak reference a
    /// collection cleared while its long (resurrection-tracking) one still holds it; a group that suppressed its
    /// finalizer loses both at once. Serial because another test's full collection between ours and the check would
    /// clear a finalized group's long reference too.
    /// </summary>
    [Collection(SerialTests.Name)]
    public class OwnerGroupFinalizationTests
    {
        private static readonly SlabMemoryAllocatorOptions NoIdleTrim = new() { IdleTrimDelay = Timeout.InfiniteTimeSpan };

        private sealed class Watched
        {
            public Watched(int id, OwnerGroup group)
            {
                Id = id;
                Short = new WeakReference(group, trackResurrection: false);
                Long = new WeakReference(group, trackResurrection: true);
            }

            public int Id { get; }

            public WeakReference Short { get; }

            public WeakReference Long { get; }

            /// <summary>Unreachable, but kept for its finalizer (checked right after a collection).</summary>
            public bool AwaitsFinalizer => !Short.IsAlive && Long.IsAlive;
        }

        /// <summary>Collects until every watched group is gone; returns the ids seen waiting for their finalizer.</summary>
        private static SortedSet<int> CollectAll(List<Watched> watched)
        {
            var finalized = new SortedSet<int>();
            for (int i = 0; i < 20 && watched.Any(w => w.Long.IsAlive); i++)
            {
                GC.Collect();
                foreach (Watched w in watched.Where(w => w.AwaitsFinalizer))
                    finalized.Add(w.Id);
                GC.WaitForPendingFinalizers();
            }
            Assert.False(watched.Any(w => w.Long.IsAlive), "a watched group is still reachable");
            return finalized;
        }

        [Fact]
        public void A_group_whose_buffers_were_all_disposed_is_never_finalized_one_with_a_dropped_buffer_is()
        {
            // Three full groups whose buffers are all disposed must leave the finalization queue (finalizing them costs a
            // promotion and a finalizer run per 64 small buffers); a full group with one buffer dropped, and the
            // thread's last, partly filled group, must still be finalized, and the dropped buffer's block come back.
            var allocator = new SlabMemoryAllocator(NoIdleTrim);
            var watched = new List<Watched>();
            var thread = new Thread(() => FillGroups(allocator, watched));
            thread.Start();
            thread.Join();
            Assert.Equal(5, watched.Count);
            // The thread's cache held the group it was filling; a trim forgets the cache of a thread that ended.
            allocator.Trim();
            Assert.Equal(new[] { 4, 5 }, CollectAll(watched).ToArray());
            Assert.Equal(0, allocator.BytesInUse);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void FillGroups(SlabMemoryAllocator allocator, List<Watched> watched)
        {
            // A new thread starts a new group with its first buffer: groups 1-4 full, group 5 holds 10 buffers.
            var owners = Enumerable.Range(0, 4 * OwnerGroup.Capacity + 10).Select(_ => (SlabMemoryOwner)allocator.Allocate(100)).ToList();
            for (int i = 0; i < owners.Count; i += OwnerGroup.Capacity)
                watched.Add(new Watched(1 + i / OwnerGroup.Capacity, owners[i].Group!));
            Assert.Equal(5, owners.Select(o => o.Group).Distinct().Count());
            foreach (SlabMemoryOwner owner in owners.Where((_, i) => i != 3 * OwnerGroup.Capacity + 7))
                ((IDisposable)owner).Dispose(); // every buffer but one of group 4
            Assert.Equal(128, allocator.BytesInUse); // 100 bytes round up to 128
        }

        [Fact]
        public void A_group_whose_buffers_are_all_disposed_is_not_finalized_while_its_thread_fills_it()
        {
            // A read of small batches allocates a few buffers and disposes them all, batch after batch, with gen-0
            // collections in between. Held weakly, the group being filled died at each collection with its buffers all
            // disposed, and the finalizer thread woke up to finalize it; held by the cache, it never is, and a full group
            // whose buffers were all disposed leaves the finalization queue.
            Exception? failure = null;
            var thread = new Thread(() =>
            {
                try
                {
                    var allocator = new SlabMemoryAllocator(NoIdleTrim);
                    var watched = new List<Watched>();
                    var finalized = new SortedSet<int>();
                    for (int batch = 0; batch < 100; batch++)
                    {
                        AllocateAndDisposeBatch(allocator, watched);
                        if (batch % 10 == 0)
                        {
                            GC.Collect();
                            finalized.UnionWith(watched.Where(w => w.AwaitsFinalizer).Select(w => w.Id));
                            GC.WaitForPendingFinalizers();
                        }
                    }
                    GC.Collect();
                    finalized.UnionWith(watched.Where(w => w.AwaitsFinalizer).Select(w => w.Id));
                    Assert.True(watched.Count >= 6, $"{watched.Count} groups"); // 400 buffers, 64 a group
                    Assert.Empty(finalized);
                    Assert.Equal(0, allocator.BytesInUse);
                }
                catch (Exception e)
                {
                    failure = e;
                }
            });
            thread.Start();
            thread.Join();
            Assert.Null(failure);
        }

        /// <summary>Four buffers allocated and disposed; a group not seen before is watched.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void AllocateAndDisposeBatch(SlabMemoryAllocator allocator, List<Watched> watched)
        {
            for (int i = 0; i < 4; i++)
            {
                var owner = (SlabMemoryOwner)allocator.Allocate(64 * (i + 1));
                OwnerGroup group = owner.Group!;
                if (!watched.Any(w => ReferenceEquals(w.Short.Target, group)))
                    watched.Add(new Watched(watched.Count + 1, group));
                ((IDisposable)owner).Dispose();
            }
        }
    }
}
