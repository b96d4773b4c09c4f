#if !NET5_0_OR_GREATER
namespace System.Runtime.CompilerServices
{
    /// <summary>netstandard2.0 lacks it; the compiler honours this internal copy (the block encoder zeroes its table itself).</summary>
    [AttributeUsage(AttributeTargets.Method, Inherited = false)]
    internal sealed class SkipLocalsInitAttribute : Attribute
    {
    }
}
#endif
