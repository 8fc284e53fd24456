using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Transport;

/// <summary>Refuses transport settings that cannot run (options pattern), naming the key.</summary>
public sealed class TransportOptionsValidator : IValidateOptions<TransportOptions>
{
    public ValidateOptionsResult Validate(string? name, TransportOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        try
        {
            options.Validate();
            return ValidateOptionsResult.Success;
        }
        catch (ArgumentOutOfRangeException exception)
        {
            return ValidateOptionsResult.Fail($"Configuration '{exception.ParamName}' cannot be {exception.ActualValue}.");
        }
    }
}
