using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Fuzz
{
    /// <summary>
    /// --ipc-file's reads on two threads at once of one reader: each batch read again while the other thread reads,
    /// its outcome (the batch's shape, or the error's type and offset in the file) compared with the one read alone.
    /// </summary>
    internal static partial class IpcFileFuzz
    {
        /// <summary>
        /// Batch <paramref name="index"/>'s outcome: its rows, columns and null counts (every column touched, as a user
        /// would), or "!" and the rejection with its offset in the file. Any other exception passes.
        /// </summary>
        private static string Outcome(Lz4ArrowFileReader reader, int index, bool asynchronous)
        {
            try
            {
                using RecordBatch batch = asynchronous
                    ? reader.ReadRecordBatchAsync(index).AsTask().GetAwaiter().GetResult()
                    : reader.ReadRecordBatch(index);
                long nulls = 0;
                for (int c = 0; c < batch.ColumnCount; c++)
                    nulls += batch.Column(c).NullCount;
                return $"{batch.Length} rows, {batch.ColumnCount} columns, {nulls} nulls";
            }
            catch (InvalidDataException e) when (e.InnerException is Lz4FrameException frame)
            {
                ThrowIfMisworded(e);
                return $"!InvalidDataException at {frame.Offset}";
            }
            catch (NotSupportedException e)
            {
                ThrowIfMisworded(e);
                return "!NotSupportedException";
            }
        }

        /// <summary>The reader's errors count their offsets in the file and say so: the stream path's words are a finding.</summary>
        private static void ThrowIfMisworded(Exception e)
        {
            if (Misworded(e) is { } problem)
                throw new InvalidOperationException(problem);
        }

        private static string? Misworded(Exception e) =>
            e.Message.Contains("of the input stream", StringComparison.Ordinal)
                ? $"the file reader's {e.GetType().Name} counts in the input stream: {e.Message}"
                : null;

        private static string? Rejected(out bool rejected)
        {
            rejected = true;
            return null;
        }

        /// <summary>
        /// Reads the batches of <paramref name="alone"/> on two threads at once, released together (one in order, one
        /// backwards, one synchronously, one asynchronously); a difference from the outcome alone, an exception of
        /// another type or a read that does not end is the problem returned.
        /// </summary>
        private static string? ReadAtOnce(Lz4ArrowFileReader reader, Dictionary<int, string> alone)
        {
            int[] indices = alone.Keys.ToArray();
            string? problem = null;
            using var start = new Barrier(2);
            Task[] threads = Enumerable.Range(0, 2).Select(t => Task.Factory.StartNew(
                () =>
                {
                    start.SignalAndWait(TimeBudget);
                    for (int k = 0; k < indices.Length; k++)
                    {
                        int i = indices[t == 0 ? k : indices.Length - 1 - k];
                        string outcome = Outcome(reader, i, asynchronous: t == 1);
                        if (outcome != alone[i])
                            Interlocked.CompareExchange(ref problem, $"batch {i} read on two threads at once gave {outcome}, alone {alone[i]}", null);
                    }
                },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default)).ToArray();
            try
            {
                if (!Task.WaitAll(threads, TimeBudget + TimeBudget))
                    return $"reads on two threads at once did not end within {2 * TimeBudget.TotalSeconds} s";
            }
            catch (AggregateException e)
            {
                Exception inner = e.Flatten().InnerExceptions[0];
                return $"threw {inner.GetType().Name} on two threads at once: {inner.Message} (at {inner.StackTrace?.Split('\n').FirstOrDefault()?.Trim()})";
            }
            return problem;
        }
    }
}
