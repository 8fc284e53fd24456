using System.Buffers;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The shared array pool, counting the arrays rented from it and not yet returned.</summary>
internal sealed class CountingArrayPool : ArrayPool<byte>
{
    private int _outstanding;
    private int _rented;

    /// <summary>Arrays rented and not returned.</summary>
    public int Outstanding => Volatile.Read(ref _outstanding);

    /// <summary>Arrays rented so far, returned or not.</summary>
    public int Rented => Volatile.Read(ref _rented);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _rented);
        Interlocked.Increment(ref _outstanding);
        return Shared.Rent(minimumLength);
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Decrement(ref _outstanding);
        Shared.Return(array, clearArray);
    }
}
