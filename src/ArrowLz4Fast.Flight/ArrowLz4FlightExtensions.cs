using System;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace ArrowLz4Fast.Flight
{
    /// <summary>Extensions that put <see cref="Lz4FlightClientInterceptor"/> on a channel or call invoker.</summary>
    public static class ArrowLz4FlightExtensions
    {
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
