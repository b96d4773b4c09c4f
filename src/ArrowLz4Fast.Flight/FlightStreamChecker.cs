using System;
using System.Buffers;
using System.IO;
using System.Runtime.InteropServices;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using Google.Protobuf;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// The per-call state of a FlightData stream read through an interceptor: the message index, what the last schema
    /// says its batches need, and, where the messages were not decoded by a marshaller (a server's uploads), the decoder.
    /// Every data_header is parsed and checked as <see cref="IpcDecompressingStream"/> checks a message's metadata, and a
    /// defect is an <see cref="InvalidDataException"/> naming the message and the offset in it. A message whose decoded
    /// body would pass a receive limit is an <see cref="RpcException"/> with <see cref="StatusCode.ResourceExhausted"/>,
    /// as gRPC refuses a message over its own limit, naming the limit and the option that raises it.
    /// </summary>
    internal sealed class FlightStreamChecker
    {
        private readonly string _call;
        private readonly FlightCodecSettings? _limits;
        private readonly IpcStreamLayouts _layouts = new IpcStreamLayouts();
        private IpcMessageDecoder? _decoder;
        private byte[] _scratch = Array.Empty<byte>();
        private long _index = -1;
        private long _received;

        /// <param name="call">The method, for errors (DoGet, DoPut, DoExchange).</param>
        /// <param name="decoder">Decodes compressed messages here; <see langword="null"/> when a marshaller already did.</param>
        /// <param name="limits">The settings whose receive limits apply and are named in refusals; <see langword="null"/> for the decoder's own.</param>
        public FlightStreamChecker(string call, IpcMessageDecoder? decoder, FlightCodecSettings? limits = null)
        {
            _call = call;
            _decoder = decoder;
            _limits = limits;
        }

        /// <summary>Checks the next message of the stream and decodes it in place when it is compressed and a decoder was given.</summary>
        public void Next(IMessage message)
        {
            _index++;
            Exception? failed = FlightFailures.Of(message);
            if (failed is not null)
                throw Wrap(failed, callLimit: false);
            long messageLimit = _limits?.MaxBodyLength ?? long.MaxValue;
            long callRemaining = _limits is null ? long.MaxValue : _limits.MaxCallLength - _received;
            try
            {
                FlightDataFields fields = FlightDataFields.Of(message.Descriptor);
                ByteString header = fields.Header(message);
                if (header.IsEmpty)
                    return;
                Check(header.Memory);
                ByteString received = fields.Body(message);
                if (_decoder is not null
                    && _decoder.TryDecode(header.Span, received.Memory, Math.Min(messageLimit, callRemaining), out ReadOnlyMemory<byte> metadata, out byte[] body))
                {
                    fields.Set(message, metadata, body);
                    _received += body.Length;
                    return;
                }
                // Passed through (or decoded by the marshaller): it still counts towards the call's bound.
                if (received.Length > callRemaining)
                    throw Wrap(new IpcLimitException($"Its body is {received.Length} bytes.", _limits!.MaxCallLength, null), callLimit: true);
                _received += received.Length;
            }
            catch (Exception e) when (e is InvalidDataException || e is NotSupportedException || e is IpcLimitException)
            {
                throw Wrap(e, callLimit: e is IpcLimitException && callRemaining < messageLimit);
            }
        }

        /// <summary>Returns pooled memory; the checker is not used after.</summary>
        public void Release()
        {
            if (_scratch.Length > 0)
                ArrayPool<byte>.Shared.Return(_scratch);
            _scratch = Array.Empty<byte>();
            _decoder?.Release();
            _decoder = null;
        }

        private void Check(ReadOnlyMemory<byte> header)
        {
            if (!MemoryMarshal.TryGetArray(header, out ArraySegment<byte> segment))
            {
                if (_scratch.Length < header.Length)
                {
                    if (_scratch.Length > 0)
                        ArrayPool<byte>.Shared.Return(_scratch);
                    _scratch = ArrayPool<byte>.Shared.Rent(header.Length);
                }
                header.Span.CopyTo(_scratch);
                segment = new ArraySegment<byte>(_scratch, 0, header.Length);
            }
            var reader = new FlatReader(segment.Array!, segment.Offset, segment.Count, 0);
            IpcMessage parsed = IpcMessageParser.Parse(reader, buffers: true);
            _layouts.Observe(reader, parsed);
            if (!parsed.Batch.Exists)
                return;
            if (!parsed.Lz4)
                (parsed.Nodes, parsed.NodeCount) = reader.Vector(parsed.Batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
            _layouts.Check(parsed, 0);
        }

        private Exception Wrap(Exception e, bool callLimit)
        {
            string where = $"FlightData message {_index} of the {_call} stream";
            if (e is IpcLimitException limit)
            {
                string options = _limits?.LimitOptions ?? "the options";
                string raise = callLimit
                    ? $"the limit on the decoded bytes one call receives ({_limits!.MaxCallLength} bytes, {_received} of them received before this message); raise {options}.MaxReceiveCallSize to accept more"
                    : $"the receive limit on one decoded message ({limit.Limit} bytes); {_limits?.MessageLimitAdvice ?? "raise the limit to accept larger messages"}";
                return new RpcException(new Status(StatusCode.ResourceExhausted, $"{where} is refused: it passes {raise}. {e.Message}"));
            }
            string what = $"{where} (byte offsets count from its data_header's first byte, data_body following it): {e.Message}";
            if (e is NotSupportedException)
                return new NotSupportedException(what, e);
            // The frame-level exception with the offset stays the inner exception, as IpcDecompressingStream gives it.
            return new InvalidDataException(what, e.InnerException as Lz4FrameException ?? e);
        }
    }
}
