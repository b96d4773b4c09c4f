using System;
using System.Buffers;
using System.IO;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;

namespace ArrowLz4Fast
{
    /// <summary>
    /// What the stream says about the messages it reads: where a defect is (the message, the record or dictionary batch,
    /// the field and the buffer, beside its byte offset), the verifying read of offsets, and the meter's counts.
    /// </summary>
    public sealed partial class IpcDecompressingStream
    {
        // How far the current message is known, for naming a defect in it.
        private enum Known
        {
            Nothing,
            Batch,
            MetadataBuffers,
            LaidOut,
        }

        private readonly bool _verifyOffsets;

        // The last schema's metadata, in a pooled copy, and its columns, read from it only when an error names a field
        // or the verifying read needs them: a stream that neither fails nor verifies allocates nothing for them.
        private byte[] _schema;
        private int _schemaLength;
        private FlatTable _schemaRoot;
        private IpcSchemaColumns? _columns;
        private bool _columnsRead;
        private long _messageIndex = -1;
        private long _recordBatches;
        private long _dictionaryBatches;
        private long _batchIndex;
        private Known _known;
        private int _failedBuffer = -1;

        private long _messagesParsed;

        /// <summary>IPC messages this stream has read the metadata of (for the framed path's meter).</summary>
        internal long MessagesRead => _messagesParsed;

        /// <summary>A new message begins: nothing is known of it yet.</summary>
        private void BeginMessage()
        {
            _messageIndex++;
            _known = Known.Nothing;
            _failedBuffer = -1;
            _projected = false;
        }

        /// <summary>Notes the parsed message: a schema's columns, a batch's index among its kind.</summary>
        private void ObserveMessage(in IpcMessage message, int length)
        {
            if (message.HeaderType == IpcMessageParser.HeaderSchema)
            {
                if (_schema.Length < length)
                {
                    ReturnSchema();
                    _schema = ArrayPool<byte>.Shared.Rent(length);
                }
                _header.AsSpan(8, length).CopyTo(_schema);
                _schemaLength = length;
                _schemaRoot = message.Root;
                _columns = null;
                _columnsRead = false;
            }
            else if (message.HeaderType == IpcMessageParser.HeaderRecordBatch)
                _batchIndex = _recordBatches++;
            else if (message.HeaderType == IpcMessageParser.HeaderDictionaryBatch)
                _batchIndex = _dictionaryBatches++;
            if (message.Batch.Exists)
                _known = Known.Batch;
        }

        /// <summary>The last schema's columns, read at the first need; null before a schema.</summary>
        private IpcSchemaColumns? Columns
        {
            get
            {
                if (!_columnsRead && _schemaLength > 0)
                {
                    _columns = IpcSchemaColumns.Read(_schema, 0, _schemaLength, _schemaRoot);
                    _columnsRead = true;
                }
                return _columns;
            }
        }

        private void ReturnSchema()
        {
            if (_schema.Length > 0)
                ArrayPool<byte>.Shared.Return(_schema);
            _schema = Array.Empty<byte>();
            _schemaLength = 0;
        }

        /// <summary>Counts a decoded body, then checks its offsets when the verifying read is on.</summary>
        private void Decoded(ReadOnlySpan<byte> body)
        {
            ArrowLz4FastMetrics.RecordDecompressMessage(ArrowLz4FastMetrics.TagIpcStream, IpcBufferItem.Frames(_items, _itemCount), _message.BodyLength, _outputLength);
            if (!_verifyOffsets || LayoutOf(_message) is not { } layout)
                return;
            if (!IpcOffsetsVerifier.Verify(layout, _reader, _message, body, _items, _bodyOffset, out IpcOffsetsVerifier.Failure failure))
            {
                _failedBuffer = failure.Buffer;
                IpcErrors.Throw(failure.Offset, $"the verifying read (VerifyOffsets) found that {failure.What}");
            }
        }

        /// <summary>
        /// <paramref name="e"/> with the message, batch, field and buffer of the defect added to its text; null when
        /// it is not a defect at an offset (or no message has begun).
        /// </summary>
        private InvalidDataException? Named(Exception e)
        {
            // Only the stream's own defects, once: one its input threw counts its offsets in another stream.
            if (e is not InvalidDataException || e.InnerException is not Lz4FrameException frame || _messageIndex < 0
                || OwnError.Of(e) is not { Origin: OffsetOrigin.IpcInput, Location: "" } own)
                return null;
            string where = $" In message {_messageIndex} of the stream";
            string named = string.Empty;
            if (_known >= Known.Batch)
            {
                where += _message.Dictionary.Exists
                    ? $" (dictionary batch {_batchIndex}, of dictionary id {_message.DictionaryId}"
                    : $" (record batch {_batchIndex}";
                where += ", counted from 0)";
                int buffer = _failedBuffer >= 0 ? _failedBuffer : Locate(frame.Offset, frame.Kind == Lz4FrameErrorKind.DecodedLength);
                if (buffer >= 0)
                {
                    named = Buffer(buffer);
                    where += ": " + named;
                }
            }
            return IpcErrors.Invalid(own.At(where + ".", named), frame.Kind, frame.InnerException, framed: false);
        }

        /// <summary>
        /// The body buffer whose bytes in the input hold <paramref name="offset"/>, or -1. With
        /// <paramref name="orAtEnd"/>, failing that, the one whose bytes end there: a frame that decodes to a length other
        /// than its buffer declares is found once it has been read to its end, which is the buffer's end when it fills it.
        /// </summary>
        private int Locate(long offset, bool orAtEnd)
        {
            int endsThere = -1;
            for (int i = 0; i < _message.BufferCount; i++)
            {
                long start, length;
                if (_known == Known.LaidOut)
                {
                    // Each item's source starts after its 8-byte prefix; an empty buffer has none.
                    if (_items[i].Source < 8)
                        continue;
                    (start, length) = (_items[i].Skipped + _items[i].Source - 8, _items[i].SourceLength + 8L);
                }
                else if (_known == Known.MetadataBuffers && _projected)
                {
                    // The metadata counts in the compacted body; each kept buffer's place in the input is in the gather list.
                    (start, length) = (_gather[i].Source, _gather[i].SourceLength);
                }
                else if (_known == Known.MetadataBuffers)
                {
                    int at = _message.Buffers + (i * IpcMessageParser.BufferStructSize);
                    (start, length) = (_reader.ReadInt64(at), _reader.ReadInt64(at + 8));
                }
                else
                {
                    return -1;
                }
                long within = offset - _bodyOffset - start;
                if (within >= 0 && within < length)
                    return i;
                if (orAtEnd && endsThere < 0 && length > 0 && within == length)
                    endsThere = i;
            }
            return endsThere;
        }

        /// <summary>Buffer <paramref name="index"/> of the batch, and the field it belongs to when the schema says.</summary>
        private string Buffer(int index)
        {
            string text = $"body buffer {index}";
            IpcSchemaColumns? columns = Columns;
            if (columns is null || LayoutOf(_message) is not { } layout)
                return text;
            int column = IpcSchemaColumns.ColumnOf(layout, index);
            if (column < 0)
                return text;
            IpcSchemaColumns.Column c = layout.Columns[column];
            return text + $" ({IpcSchemaColumns.Role(c.Type, index - c.FirstBuffer)}) of field '{columns.Name(c.Field)}', path '{columns.Path(layout, column)}', field node {c.Node}";
        }
    }
}
