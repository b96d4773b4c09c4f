using System;
using ArrowLz4Fast.Inspect;

return Inspector.Run(args, Console.Out, Console.Error);
