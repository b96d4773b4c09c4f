using System;
using ArrowLz4Fast.Flight.Tests.Support;

namespace ArrowLz4Fast.Flight.Tests
{
    /// <summary>
    /// The test assembly's entry point (the test SDK's generated one is turned off): test runners never call it; a test
    /// that needs a server in a process of its own starts <c>dotnet exec</c> on this assembly with a switch.
    /// </summary>
    public static class TestProgram
    {
        public static int Main(string[] args)
        {
            if (args.Length > 0 && args[0] == ServerProcess.Switch)
                return ServerProcess.Run(args);
            Console.Error.WriteLine($"usage: {ServerProcess.Switch} GRPC-LIMIT|null DECODED-LIMIT");
            return 2;
        }
    }
}
