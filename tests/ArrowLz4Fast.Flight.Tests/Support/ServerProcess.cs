using System;
using System.Diagnostics;
using System.Globalization;
using System.Threading.Tasks;
using Apache.Arrow.Flight;
using Apache.Arrow.Flight.Client;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// A Flight server with the server interceptor in a child process (this assembly run with <see cref="Switch"/>), so
    /// that what the server allocates during a call is measured apart from the client: each process counts its own heap
    /// (<c>GC.GetTotalAllocatedBytes</c>), and the child reports its count through a Flight action.
    /// </summary>
    internal sealed class ServerProcess : IAsyncDisposable
    {
        public const string Switch = "--flight-server";
        private const string AddressPrefix = "address=";
        private readonly Process _process;
        private readonly Task<string> _errors;

        private ServerProcess(Process process, Task<string> errors, string address)
        {
            _process = process;
            _errors = errors;
            Address = address;
        }

        public string Address { get; }

        /// <summary>Starts a server whose gRPC receive limit is <paramref name="grpcLimit"/> and whose decoded limit is <paramref name="decodedLimit"/>.</summary>
        public static async Task<ServerProcess> StartAsync(int? grpcLimit, int decodedLimit)
        {
            string assembly = typeof(ServerProcess).Assembly.Location;
            var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet")
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (string argument in new[] { "exec", assembly, Switch, grpcLimit?.ToString(CultureInfo.InvariantCulture) ?? "null", decodedLimit.ToString(CultureInfo.InvariantCulture) })
                start.ArgumentList.Add(argument);
            Process process = Process.Start(start) ?? throw new InvalidOperationException("could not start the server process");
            Task<string> errors = process.StandardError.ReadToEndAsync();
            string? line = await process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromMinutes(1));
            if (line is null || !line.StartsWith(AddressPrefix, StringComparison.Ordinal))
            {
                process.Kill();
                throw new InvalidOperationException($"the server process did not start: {line} {await errors}");
            }
            return new ServerProcess(process, errors, line.Substring(AddressPrefix.Length));
        }

        /// <summary>A channel with no message size limit.</summary>
        public GrpcChannel Channel() =>
            GrpcChannel.ForAddress(Address, new GrpcChannelOptions { MaxReceiveMessageSize = null, MaxSendMessageSize = null });

        /// <summary>The bytes the server process has allocated so far.</summary>
        public static async Task<long> AllocatedAsync(GrpcChannel channel)
        {
            using AsyncServerStreamingCall<FlightResult> call = new FlightClient(channel).DoAction(new FlightAction(MeasuredFlightServer.Allocated));
            Assert.True(await call.ResponseStream.MoveNext(default));
            return long.Parse(call.ResponseStream.Current.Body.ToStringUtf8(), CultureInfo.InvariantCulture);
        }

        public async ValueTask DisposeAsync()
        {
            // The child stops when its input closes; a child that does not is killed.
            _process.StandardInput.Close();
            if (!_process.WaitForExit(30_000))
                _process.Kill();
            await _process.WaitForExitAsync();
            string errors = await _errors;
            int exit = _process.ExitCode;
            _process.Dispose();
            if (exit != 0)
                throw new InvalidOperationException($"the server process exited with {exit}: {errors}");
        }

        /// <summary>The child: serves until its standard input closes.</summary>
        public static int Run(string[] args)
        {
            int? grpcLimit = args[1] == "null" ? null : int.Parse(args[1], CultureInfo.InvariantCulture);
            var options = new Lz4FlightServerOptions { MaxReceiveMessageSize = int.Parse(args[2], CultureInfo.InvariantCulture) };
            TestHost host = TestHost.StartAsync(services => services.AddGrpc(o =>
            {
                o.MaxReceiveMessageSize = grpcLimit;
                o.MaxSendMessageSize = null;
                o.Interceptors.Add<Lz4FlightServerInterceptor>(options);
            }).AddFlightServer<MeasuredFlightServer>(), StoreFlightServer.Map).GetAwaiter().GetResult();
            Console.Out.WriteLine(AddressPrefix + host.Address);
            Console.Out.Flush();
            Console.In.ReadToEnd();
            host.DisposeAsync().AsTask().GetAwaiter().GetResult();
            return 0;
        }
    }
}
