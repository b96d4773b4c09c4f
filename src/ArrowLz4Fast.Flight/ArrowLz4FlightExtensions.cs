using System;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;

namespace ArrowLz4Fast.Flight
{
    /// <summary>Extensions that put <see cref="Lz4FlightClientInterceptor"/> on a channel or call invoker.</summary>
    public static class ArrowLz4FlightExtensions
    {
        /// <summary>
        /// The longest decoded message when the receive limit on the wire is <see langword="null"/> (no limit): 64 MiB. A
        /// limit on the decoded bytes is kept even then, since a few megabytes of LZ4 can declare a gigabyte. The client
        /// takes it when the channel's <see cref="GrpcChannelOptions.MaxReceiveMessageSize"/> is <see langword="null"/>, the
        /// server (ArrowLz4Fast.Flight.AspNetCore's <c>AddArrowLz4()</c>) when its own is.
        /// </summary>
        public const int DefaultMaxReceiveMessageSize = 64 * 1024 * 1024;

        /// <summary>A call invoker for <c>new FlightClient(invoker)</c> that reads LZ4-compressed Flight data, with default options.</summary>
        /// <param name="channel">The channel, e.g. <c>GrpcChannel.ForAddress(...)</c>.</param>
        /// <returns>The intercepted invoker.</returns>
        public static CallInvoker WithArrowLz4(this ChannelBase channel) => WithArrowLz4(channel, null);

        /// <summary>A call invoker for <c>new FlightClient(invoker)</c> that reads (and optionally writes) compressed Flight data.</summary>
        /// <param name="channel">The channel, e.g. <c>GrpcChannel.ForAddress(...)</c>.</param>
        /// <param name="options">Settings; <see langword="null"/> for the defaults.</param>
        /// <returns>The intercepted invoker.</returns>
        public static CallInvoker WithArrowLz4(this ChannelBase channel, Lz4FlightClientOptions? options)
        {
            if (channel is null) throw new ArgumentNullException(nameof(channel));
            return channel.Intercept(new Lz4FlightClientInterceptor(options));
        }

        /// <summary>
        /// A call invoker for <c>new FlightClient(invoker)</c> that reads (and optionally writes) compressed Flight data,
        /// whose responses may decode to at most the channel's own receive limit: the options the channel was made with.
        /// </summary>
        /// <remarks>
        /// Unless <paramref name="options"/> sets <see cref="Lz4FlightClientOptions.MaxReceiveMessageSize"/>, a DoGet or
        /// DoExchange response message may decode to at most <paramref name="channelOptions"/>'
        /// <see cref="GrpcChannelOptions.MaxReceiveMessageSize"/> (gRPC's default is 4 MiB), or
        /// <see cref="DefaultMaxReceiveMessageSize"/> when that is <see langword="null"/>: the limit set once for the bytes on
        /// the wire bounds the bytes after decoding too. A <see cref="GrpcChannel"/> keeps its options to itself, so pass
        /// the ones given to <c>GrpcChannel.ForAddress</c>; they are read now.
        /// </remarks>
        /// <param name="channel">The channel, made with <paramref name="channelOptions"/>.</param>
        /// <param name="channelOptions">
        /// The options <paramref name="channel"/> was made with; <see langword="null"/> for none known, which makes this
        /// <see cref="WithArrowLz4(ChannelBase, Lz4FlightClientOptions?)"/> (so <c>channel.WithArrowLz4(null)</c> keeps its meaning).
        /// </param>
        /// <param name="options">Settings; <see langword="null"/> for the defaults.</param>
        /// <returns>The intercepted invoker.</returns>
        /// <exception cref="ArgumentOutOfRangeException">A limit or MinSpaceSavings is out of range.</exception>
        public static CallInvoker WithArrowLz4(this GrpcChannel channel, GrpcChannelOptions? channelOptions, Lz4FlightClientOptions? options = null)
        {
            if (channel is null) throw new ArgumentNullException(nameof(channel));
            options ??= new Lz4FlightClientOptions();
            if (channelOptions is null || options.MaxReceiveMessageSizeIsSet)
                return channel.Intercept(new Lz4FlightClientInterceptor(options));
            (int limit, string source) = FlightCodecSettings.FromTransport(channelOptions.MaxReceiveMessageSize,
                "the channel's GrpcChannelOptions.MaxReceiveMessageSize", $"{nameof(ArrowLz4FlightExtensions)}.{nameof(DefaultMaxReceiveMessageSize)}");
            return channel.Intercept(new Lz4FlightClientInterceptor(options, limit, source));
        }

        /// <summary>A call invoker for <c>new FlightClient(invoker)</c> that reads (and optionally writes) compressed Flight data.</summary>
        /// <param name="invoker">The invoker to wrap.</param>
        /// <param name="options">Settings; <see langword="null"/> for the defaults.</param>
        /// <returns>The intercepted invoker.</returns>
        public static CallInvoker WithArrowLz4(this CallInvoker invoker, Lz4FlightClientOptions? options)
        {
            if (invoker is null) throw new ArgumentNullException(nameof(invoker));
            return invoker.Intercept(new Lz4FlightClientInterceptor(options));
        }
    }
}
