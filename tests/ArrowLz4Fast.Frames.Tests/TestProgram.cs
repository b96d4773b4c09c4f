using System;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The test assembly's entry point (the test SDK's generated one is turned off): test runners never call it; a test
    /// that needs a fresh process with its own environment starts <c>dotnet exec</c> on this assembly with a switch.
    /// </summary>
    public static class TestProgram
    {
        public static int Main(string[] args)
        {
            if (args.Length > 0 && args[0] == HelperThreadChild.Switch)
                return HelperThreadChild.Run();
            Console.Error.WriteLine($"usage: {HelperThreadChild.Switch}");
            return 2;
        }
    }
}
