using System;
using System.Linq;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>Runs one probe, chosen by its switch; docs/probes.md says what each found.</summary>
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length > 0 && args[0] == LargeStreamRun.ChildSwitch)
                return LargeStreamRun.Child(args);
            if (args.Contains(LargeStreamRun.ParentSwitch))
                return LargeStreamRun.Run(args);
            if (args.Contains(AllocatorProbe.Switch))
                return AllocatorProbe.Run(args);
            if (args.Contains(SpinProbe.Switch))
                return SpinProbe.Run();
            if (args.Contains(WriterProbe.Switch))
                return WriterProbe.Run();
            if (args.Contains(EncodeProbe.Switch))
                return EncodeProbe.Run(args);
            if (args.Contains(CoreSpeedProbe.Switch))
                return CoreSpeedProbe.Run(args);
            if (args.Contains(WindowReuseProbe.Switch))
                return WindowReuseProbe.Run(args);
            if (args.Contains(StreamSpanProbe.Switch))
                return StreamSpanProbe.Run(args);
            if (args.Contains(IpcReadLoopProbe.Switch))
                return IpcReadLoopProbe.Run(args);
            if (args.Contains(IpcConsumeProbe.Switch))
                return IpcConsumeProbe.Run(args);
            if (args.Contains(FlightServerProbe.Switch))
                return FlightServerProbe.Run(args);
            if (args.Contains(IpcWriteProbe.Switch))
                return IpcWriteProbe.Run(args);
            if (args.Contains(RandomAccessProbe.Switch))
                return RandomAccessProbe.Run(args);
            if (args.Contains(ShortStreamProbe.Switch))
                return ShortStreamProbe.Run(args);
            if (args.Contains(CopyAliasProbe.Switch))
                return CopyAliasProbe.Run();
            Console.Error.WriteLine($"usage: one of {LargeStreamRun.ParentSwitch}, {AllocatorProbe.Switch}, {SpinProbe.Switch}, {WriterProbe.Switch}, {EncodeProbe.Switch}, {CoreSpeedProbe.Switch}, {WindowReuseProbe.Switch}, {StreamSpanProbe.Switch}, {IpcReadLoopProbe.Switch}, {IpcConsumeProbe.Switch}, {FlightServerProbe.Switch}, {IpcWriteProbe.Switch}, {RandomAccessProbe.Switch}, {ShortStreamProbe.Switch}, {CopyAliasProbe.Switch}");
            return 2;
        }
    }
}
