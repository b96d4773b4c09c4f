using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Threading;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Memory;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The README's error contract on every public read path: bytes flipped inside every LZ4 buffer of real streams fail,
    /// if they fail, with <see cref="InvalidDataException"/> (or <see cref="NotSupportedException"/> for a dictionary
    /// flag), never Arrow's bare <see cref="Exception"/>, and the message names the stream or frame its offset is in.
    /// </summary>
    public class CorruptionOnEveryPathTests
    {
        public static readonly string[] Files = { "ipc/pyarrow/strings.arrows", "ipc/java/strings.arrows", "ipc/rust/nested_dict.arrows", "ipc/java/tiny_batches.arrows" };

        public static IEnumerable<object[]> Streams() => Files.Select(f => new object[] { f });

        private enum ReadPath { CodecDefaultAllocator, CodecSlab, CodecRoundingPool, IpcDecompressingStream, Lz4FramedArrow }

        private static readonly ReadPath[] Paths = { ReadPath.CodecDefaultAllocator, ReadPath.CodecSlab, ReadPath.CodecRoundingPool, ReadPath.IpcDecompressingStream, ReadPath.Lz4FramedArrow };

        /// <summary>One LZ4 buffer of a stream: where its 8-byte prefix lies in the file and in its message body, and its frame's length.</summary>
        private readonly record struct Lz4Buffer(int Prefix, int BodyOffset, int FrameLength);

        [Theory]
        [MemberData(nameof(Streams))]
        public void Flipped_bytes_in_every_LZ4_buffer_fail_as_invalid_data_naming_the_offsets_frame_of_reference(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            List<Lz4Buffer> all = Lz4Buffers(original);
            Assert.NotEmpty(all);
            // Each read goes through the whole stream, so every buffer of a many-batch stream cost its square. Twelve
            // spread from the first to the last (dictionary and record batches, first and last message) name the same
            // frames of reference as all of them.
            const int Sampled = 12;
            List<Lz4Buffer> buffers = all.Count <= Sampled ? all : Enumerable.Range(0, Sampled).Select(i => all[(int)((long)i * (all.Count - 1) / (Sampled - 1))]).ToList();
            int failures = 0;
            foreach (Lz4Buffer buffer in buffers)
            {
                // The frame's FLG byte (its version bits flipped: always invalid), the first block's size, the middle of
                // the first block's data, and the frame's last byte (end mark or content checksum).
                int frame = buffer.Prefix + 8;
                foreach (int at in new[] { 4, 7, buffer.FrameLength / 2, buffer.FrameLength - 1 }.Where(a => a < buffer.FrameLength).Distinct())
                {
                    byte[] bytes = (byte[])original.Clone();
                    bytes[frame + at] ^= 0xC3;
                    foreach (ReadPath path in Paths)
                    {
                        Exception? error = Read(bytes, path);
                        if (error is null)
                        {
                            // A flipped version field can never decode; elsewhere a flipped literal may decode silently.
                            Assert.False(at == 4, $"{path}: byte {frame + at} (frame byte 4) read without error");
                            continue;
                        }
                        failures++;
                        AssertNamesItsFrameOfReference(error, path, buffer, frame, $"{file}, {path}, byte {frame + at} (frame byte {at})");
                    }
                }
            }
            Assert.True(failures >= buffers.Count * 5, $"{failures} failures over {buffers.Count} buffers");
        }

        [Theory]
        [MemberData(nameof(Streams))]
        public void A_declared_length_one_off_is_invalid_data_on_every_path(string file)
        {
            byte[] original = File.ReadAllBytes(Corpus.Committed(file));
            foreach (Lz4Buffer buffer in Lz4Buffers(original).Where(b => b.FrameLength > 0).Take(3))
            {
                foreach (int delta in new[] { -1, +1 })
                {
                    byte[] bytes = (byte[])original.Clone();
                    long declared = System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(buffer.Prefix)) + delta;
                    System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(buffer.Prefix), declared);
                    foreach (ReadPath path in Paths)
                    {
                        Exception? error = Read(bytes, path);
                        Assert.True(error is InvalidDataException, $"{file}, {path}, prefix {delta:+0;-0}: {error}");
                        AssertNamesItsFrameOfReference(error!, path, buffer, buffer.Prefix + 8, $"{file}, {path}, prefix {delta:+0;-0}");
                    }
                }
            }
        }

        private static void AssertNamesItsFrameOfReference(Exception error, ReadPath path, Lz4Buffer buffer, int frame, string context)
        {
            if (error is NotSupportedException unsupported)
            {
                Assert.True(unsupported.Message.Contains("dictionary", StringComparison.Ordinal), $"{context}: {unsupported}");
                return;
            }
            Assert.True(error is InvalidDataException { InnerException: Lz4FrameException }, $"{context}: {error}");
            string message = error.Message;
            long offset = ((Lz4FrameException)error.InnerException!).Offset;
            switch (path)
            {
                case ReadPath.IpcDecompressingStream:
                    Assert.True(message.Contains($"at byte offset {offset} of the input stream", StringComparison.Ordinal), $"{context}: {message}");
                    Assert.InRange(offset, buffer.Prefix, frame + buffer.FrameLength);
                    break;
                case ReadPath.Lz4FramedArrow:
                    Assert.True(message.Contains($"at byte offset {offset} of the IPC stream decompressed from the LZ4 frame", StringComparison.Ordinal), $"{context}: {message}");
                    Assert.InRange(offset, buffer.Prefix, frame + buffer.FrameLength);
                    break;
                default:
                    // Arrow's reader reads a stream's message body into memory of its own: the prefix's offset is in it.
                    Assert.True(message.Contains($"at byte offset {offset} within this buffer's LZ4 frame", StringComparison.Ordinal), $"{context}: {message}");
                    Assert.True(message.Contains($"length prefix is at byte offset {buffer.BodyOffset} of the memory", StringComparison.Ordinal), $"{context}: {message}");
                    Assert.InRange(offset, 0, buffer.FrameLength);
                    break;
            }
        }

        private static Exception? Read(byte[] bytes, ReadPath path)
        {
            var factory = new Lz4FastCodecFactory();
            try
            {
                List<RecordBatch> batches = path switch
                {
                    ReadPath.CodecDefaultAllocator => ArrowData.ReadAll(new ArrowStreamReader(new MemoryStream(bytes), factory)),
                    ReadPath.CodecSlab => ArrowData.ReadAll(new ArrowStreamReader(new MemoryStream(bytes), Slab, factory, leaveOpen: false)),
                    ReadPath.CodecRoundingPool => ArrowData.ReadAll(new ArrowStreamReader(new MemoryStream(bytes), new LongerBufferAllocator("MemoryPool"), factory, leaveOpen: false)),
                    ReadPath.IpcDecompressingStream => ArrowData.ReadAll(new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(bytes)), Slab, factory, leaveOpen: false)),
                    _ => ArrowData.ReadAll(Lz4FramedArrow.CreateStreamReader(new MemoryStream(Framed(bytes)), Slab)),
                };
                ArrowData.DisposeAll(batches);
                return null;
            }
            catch (Exception e)
            {
                return e;
            }
        }

        private static readonly SlabMemoryAllocator Slab = new(new SlabMemoryAllocatorOptions { IdleTrimDelay = Timeout.InfiniteTimeSpan });

        private static byte[] Framed(byte[] ipc)
        {
            var output = new MemoryStream();
            using (var lz4 = new Lz4FrameStream(output, CompressionMode.Compress, leaveOpen: true))
                lz4.Write(ipc, 0, ipc.Length);
            return output.ToArray();
        }

        /// <summary>
        /// Every non-empty LZ4 buffer of the stream: the frames Arrow's reader hands the codec, found in the message
        /// bodies right after their 8-byte prefix.
        /// </summary>
        private static List<Lz4Buffer> Lz4Buffers(byte[] bytes)
        {
            var recorder = new RecordingCodecFactory(new Lz4FastCodecFactory());
            ArrowData.DisposeAll(ArrowData.ReadAll(bytes, false, recorder));
            var found = new SortedDictionary<int, Lz4Buffer>();
            List<IpcMutator.Message> messages = IpcMutator.Messages(bytes).Where(m => m.Lz4).ToList();
            foreach ((byte[] frame, _) in recorder.Inputs.Where(i => i.Frame.Length > 0))
            {
                foreach (IpcMutator.Message message in messages)
                {
                    ReadOnlySpan<byte> body = bytes.AsSpan(message.Body, (int)message.BodyLength);
                    int at = body.IndexOf(frame);
                    if (at >= 8)
                    {
                        found[message.Body + at - 8] = new Lz4Buffer(message.Body + at - 8, at - 8, frame.Length);
                        break;
                    }
                }
            }
            return found.Values.ToList();
        }
    }
}
