using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Data;

/// <summary>
/// What a database method hands back: its rows, or the <see cref="DataFailure"/> that says why there are none. The
/// HTTP layer answers from it without knowing the driver.
/// </summary>
/// <remarks>
/// A result rather than exceptions because of what an outage costs: every request then fails, and a thrown exception
/// costs microseconds and a stack trace each, which the circuit breaker exists to spare. Two fields inside the
/// ValueTask: success costs a null check and no allocation, and the breaker's failure is one shared instance, so failing
/// fast allocates nothing either (docs/decisions/0009-data-results.md). Only outcomes are results: a count out of
/// range or a broken invariant is a bug, and still throws.
/// </remarks>
internal readonly struct DataResult<T>
{
    private readonly T _value;

    public DataResult(T value)
    {
        _value = value;
        Failure = null;
    }

    public DataResult(DataFailure failure)
    {
        ArgumentNullException.ThrowIfNull(failure);
        _value = default!;
        Failure = failure;
    }

    /// <summary>Why there is no value; null when the call brought its rows.</summary>
    public DataFailure? Failure { get; }

    public DataOutcome Outcome => Failure?.Outcome ?? DataOutcome.Available;

    /// <summary>The rows; throws when there are none (for callers that have checked, or tests that expect them).</summary>
    public T Value => Failure is null ? _value : ThrowNoValue(Failure);

    public static implicit operator DataResult<T>(T value) => new(value);

    public static implicit operator DataResult<T>(DataFailure failure) => new(failure);

    /// <summary>The value, or false with the failure: the one check an endpoint makes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetValue([MaybeNullWhen(false)] out T value, [NotNullWhen(false)] out DataFailure? failure)
    {
        value = _value;
        failure = Failure;
        return failure is null;
    }

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static T ThrowNoValue(DataFailure failure) => throw new InvalidOperationException($"The database call brought no rows: {failure.Reason}");
}
