using System.IO.Pipelines;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>The two ends a connection sees of an in-memory transport: it reads requests from one pipe and writes responses to another.</summary>
internal sealed class DuplexPipe : IDuplexPipe
{
    public DuplexPipe(PipeReader input, PipeWriter output)
    {
        Input = input;
        Output = output;
    }

    public PipeReader Input { get; }

    public PipeWriter Output { get; }
}
