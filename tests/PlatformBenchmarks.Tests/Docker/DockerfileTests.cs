using Npgsql;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

public class DockerfileTests
{
    private static readonly string Jit = Path.Combine(TfbSubmission.Folder, "platformbenchmarks.dockerfile");
    private static readonly string Aot = Path.Combine(TfbSubmission.Folder, "platformbenchmarks-aot.dockerfile");

    public static TheoryData<string> Dockerfiles => new(Jit, Aot);

    [Theory]
    [MemberData(nameof(Dockerfiles))]
    public void TheBuildStagePublishesTheServerInReleaseWithTheDotNet10Sdk(string dockerfile)
    {
        string[] lines = File.ReadAllLines(dockerfile);

        Assert.Equal("FROM mcr.microsoft.com/dotnet/sdk:10.0 AS build", lines.First(l => l.StartsWith("FROM ", StringComparison.Ordinal)));
        Assert.Single(lines, l => l.StartsWith("RUN dotnet publish src/PlatformBenchmarks/PlatformBenchmarks.csproj -c Release", StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(Dockerfiles))]
    public void TheImageSetsTheRuntimeSettingsAndTfbsDatabase(string dockerfile)
    {
        string[] lines = File.ReadAllLines(dockerfile);

        Assert.Contains("ENV DOTNET_GCDynamicAdaptationMode=0", lines);
        string connection = Assert.Single(lines, l => l.StartsWith("ENV ConnectionString=", StringComparison.Ordinal));
        Assert.Contains("Host=tfb-database;", connection, StringComparison.Ordinal);
        Assert.Contains("Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass", connection, StringComparison.Ordinal);
        AssertLeavesTuningToTheServer(connection["ENV ConnectionString=".Length..].Trim('"'));
    }

    [Fact]
    public void TheCrankApplicationLeavesTuningToTheServer()
    {
        string line = File.ReadAllLines(Repository.PathOf("scenarios", "platformbenchmarks.benchmarks.yml"))
            .Single(l => l.TrimStart().StartsWith("ConnectionString:", StringComparison.Ordinal));
        string connection = line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim().Trim('\'');

        AssertLeavesTuningToTheServer(connection.Replace("{{databaseServer}}", "db", StringComparison.Ordinal).Replace("{{databasePort}}", "5432", StringComparison.Ordinal));
    }

    /// <summary>
    /// A deployment's connection string wins over the server's Npgsql defaults, so it must not lower them: with fewer
    /// auto-prepare slots than statements, multiplexing Npgsql 10.0.0 desyncs under load (see DatabaseOptions).
    /// </summary>
    private static void AssertLeavesTuningToTheServer(string connectionString)
    {
        NpgsqlConnectionStringBuilder effective = new PlatformBenchmarks.Data.DatabaseOptions { ConnectionString = connectionString }.CreateConnectionStringBuilder();

        Assert.Equal(PlatformBenchmarks.Data.DatabaseOptions.DefaultMaxAutoPrepare, effective.MaxAutoPrepare);
        Assert.True(effective.Multiplexing);
        Assert.Equal(PlatformBenchmarks.Data.DatabaseOptions.DefaultMultiplexingPoolSize, effective.MaxPoolSize);
    }

    [Fact]
    public void TheJitImageRunsTheFrameworkDependentServerOnTheAspNetRuntime()
    {
        string[] lines = File.ReadAllLines(Jit);

        Assert.Contains("FROM mcr.microsoft.com/dotnet/aspnet:10.0 AS runtime", lines);
        Assert.Contains("ENTRYPOINT [\"dotnet\", \"PlatformBenchmarks.dll\", \"--urls\", \"http://*:8080\"]", lines);
    }

    [Fact]
    public void TheAotImageCompilesNativeCodeWithClangAndRunsOnRuntimeDeps()
    {
        string[] lines = File.ReadAllLines(Aot);

        string install = Assert.Single(lines, l => l.StartsWith("RUN apt-get", StringComparison.Ordinal));
        Assert.Contains(" clang ", install, StringComparison.Ordinal);
        Assert.Contains(" zlib1g-dev ", install, StringComparison.Ordinal);
        Assert.Contains(lines, l => l.StartsWith("RUN dotnet publish", StringComparison.Ordinal) && l.Contains("-p:PublishAot=true", StringComparison.Ordinal));
        Assert.Contains("FROM mcr.microsoft.com/dotnet/runtime-deps:10.0 AS runtime", lines);
        Assert.Contains("ENTRYPOINT [\"./PlatformBenchmarks\", \"--urls\", \"http://*:8080\"]", lines);
    }

    [Theory]
    [MemberData(nameof(Dockerfiles))]
    public void EverythingTheBuildCopiesIsInTheRepository(string dockerfile)
    {
        IEnumerable<string> sources = File.ReadAllLines(dockerfile)
            .Where(l => l.StartsWith("COPY ", StringComparison.Ordinal) && !l.StartsWith("COPY --from", StringComparison.Ordinal))
            .SelectMany(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1..^1]);

        Assert.All(sources, source => Assert.True(Path.Exists(Repository.PathOf(source)), $"COPY {source}: not in the repository"));
    }

    [Fact]
    public void TheBuildContextLeavesBuildOutputBehind()
    {
        // The context is the repository root: a host's obj/ (restore state with host paths) must not reach the image.
        string[] ignored = File.ReadAllLines(Repository.PathOf(".dockerignore"));

        Assert.Contains("**/bin/", ignored);
        Assert.Contains("**/obj/", ignored);
    }
}
