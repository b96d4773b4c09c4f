using System;
using System.Buffers.Binary;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>The IPC file format: each message's place in the input and the output, and the footer rewritten to them.</summary>
    public sealed partial class IpcCompressingStream
    {
        private const int BlockSize = 24;
        private const int FooterDictionaries = 2;
        private const int FooterRecordBatches = 3;

        private struct MessagePlace
        {
            public long Input;
            public int InputMetadata;
            public long InputBody;
            public long Output;
            public int OutputMetadata;
            public long OutputBody;
        }

        private MessagePlace[] _places = Array.Empty<MessagePlace>();
        private int _placeCount;

        /// <summary>Records where a message of a file went (a footer block names it by its input offset).</summary>
        private void Place(long input, int inputMetadata, long inputBody, int outputMetadata, long outputBody)
        {
            if (!_file)
                return;
            if (_placeCount == _places.Length)
                Array.Resize(ref _places, Math.Max(16, _places.Length * 2));
            _places[_placeCount++] = new MessagePlace
            {
                Input = input,
                InputMetadata = inputMetadata,
                InputBody = inputBody,
                Output = _outputQueued,
                OutputMetadata = outputMetadata,
                OutputBody = outputBody,
            };
        }

        /// <summary>
        /// Once the bytes after the last message end with the footer's length and ARROW1 (and that length is what came
        /// before them), rewrites the footer's blocks and queues it; false while the footer is still arriving.
        /// </summary>
        private bool TryFinishFile()
        {
            if (_have < 10 || !_message.AsSpan(_have - s_fileMagic.Length, s_fileMagic.Length).SequenceEqual(s_fileMagic))
                return false;
            int footerLength = BinaryPrimitives.ReadInt32LittleEndian(_message.AsSpan(_have - 10));
            if (footerLength != _have - 10)
                return false;
            Drain();
            var reader = new FlatReader(_message, 0, footerLength, _messageStart);
            FlatTable footer = reader.Root("Footer");
            RewriteBlocks(reader, footer, FooterDictionaries, "Footer.dictionaries");
            RewriteBlocks(reader, footer, FooterRecordBatches, "Footer.recordBatches");
            Queue(_message.AsSpan(0, _have).ToArray(), Owner.None);
            _have = 0;
            _phase = Phase.Done;
            return true;
        }

        private void RewriteBlocks(FlatReader reader, FlatTable footer, int field, string what)
        {
            (int position, int count) = reader.Vector(footer, field, BlockSize, what);
            for (int i = 0; i < count; i++)
            {
                int at = position + (i * BlockSize);
                long offset = reader.ReadInt64(at);
                int metadata = reader.ReadInt32(at + 8);
                long body = reader.ReadInt64(at + 16);
                int index = Find(offset);
                if (index < 0 || _places[index].InputMetadata != metadata || _places[index].InputBody != body)
                    IpcErrors.Throw(reader.InputOffset(at), $"file footer, {what}[{i}] (offset {offset}, metaDataLength {metadata}, bodyLength {body}) is not a message written before it");
                ref MessagePlace place = ref _places[index];
                Span<byte> block = _message.AsSpan(at, BlockSize);
                BinaryPrimitives.WriteInt64LittleEndian(block, place.Output);
                BinaryPrimitives.WriteInt32LittleEndian(block.Slice(8), place.OutputMetadata);
                BinaryPrimitives.WriteInt64LittleEndian(block.Slice(16), place.OutputBody);
            }
        }

        /// <summary>The place of the message at input offset <paramref name="input"/>, or -1 (places are in input order).</summary>
        private int Find(long input)
        {
            int low = 0, high = _placeCount - 1;
            while (low <= high)
            {
                int middle = low + ((high - low) >> 1);
                long at = _places[middle].Input;
                if (at == input)
                    return middle;
                if (at < input)
                    low = middle + 1;
                else
                    high = middle - 1;
            }
            return -1;
        }
    }
}
