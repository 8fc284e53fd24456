using System.Diagnostics;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Xml.Linq;
using Npgsql;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// What a crank agent does with the server job of scenarios/*.benchmarks.yml, replayed here because crank itself does
/// not restore on this machine. Read from crank's agent (dotnet/crank, src/Microsoft.Crank.Agent/Startup.cs): it
/// patches the nearest NuGet.config above the project with its own seven feeds (mapping them to every package when the
/// file maps sources), installs the SDK the nearest global.json names when the job sets <c>noGlobalJson</c> (and pins
/// the file to it; without that setting it writes its own channel's SDK version into the file), publishes with <c>dotnet publish {project} -c Release --disable-build-servers -o published</c>,
/// <c>/p:RestoreNoCache=true</c> and <c>--framework</c> from the job (else from the project file, else net8.0), then
/// runs <c>dotnet published/{assembly}.dll</c> with the job's arguments and environment, rendered from its variables.
/// The agent's feeds are on the internet; an empty NuGet feed served over HTTP on loopback stands in for each (a remote
/// source, as they are: NuGet's NU1507 check, several sources without a mapping under central package management,
/// ignores local folders).
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class CrankAgentTests
{
    private static readonly string[] s_agentFeeds = ["dotnet9", "dotnet9-transport", "dotnet10", "dotnet10-transport", "dotnet11", "dotnet11-transport", "dotnet-public"];

    private static readonly Dictionary<string, string> s_presetAccept = new()
    {
        // crank's wrk job (src/Microsoft.Crank.Jobs.Wrk/wrk.yml): its header presets.
        ["plaintext"] = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7",
        ["json"] = "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7",
    };

    [Fact]
    public async Task TheAgentsPublishOfTheServerJobSucceedsAndTheServerItStartsAnswersEveryScenariosPath()
    {
        string file = CrankFiles.Paths().Single();
        Dictionary<string, object?> config = CrankFiles.Load(file);
        Dictionary<string, object?> job = CrankFiles.Mapping(CrankFiles.Mapping(config, "jobs"), "platformbenchmarks");
        Dictionary<string, object?> source = CrankFiles.Mapping(job, "source");
        string work = Directory.CreateTempSubdirectory("pb-crank-").FullName;
        try
        {
            // The agent receives the job's localFolder (the repository) as uploaded files.
            string app = Path.Combine(work, "app");
            await CopyTrackedFilesAsync(Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)source["localFolder"]!)), app);
            string project = Path.Combine(app, (string)source["project"]!);
            using var feed = EmptyFeed.Start();
            string patched = PatchNuGetConfigAsTheAgentDoes(Path.GetDirectoryName(project)!, feed);
            Assert.Equal(Path.Combine(app, "NuGet.config"), patched);

            // The agent's SDK: with noGlobalJson, exactly the version the nearest global.json names (the file's
            // rollForward becomes disable). Without it the agent's own channel's SDK, which no replay here can know.
            // This machine cannot install that exact version, so the replay keeps the file's own rollForward and
            // requires the SDK it builds with to be of the same feature band.
            Assert.Equal("true", job.GetValueOrDefault("noGlobalJson") as string);
            string agentSdk = SdkOfTheNearestGlobalJson(Path.GetDirectoryName(project)!);
            ProcessResult sdk = await ChildProcess.RunAsync("bash", ["-c", "cd \"$0\" && dotnet --version", Path.GetDirectoryName(project)!], TimeSpan.FromMinutes(1));
            Assert.True(sdk.ExitCode == 0, sdk.ToString());
            Assert.Equal(FeatureBand(agentSdk), FeatureBand(sdk.Output.Trim()));

            // The agent's choice: the job's framework, else a TargetFramework in the project file itself, else net8.0.
            string framework = job.GetValueOrDefault("framework") as string
                ?? XDocument.Load(project).Descendants("TargetFramework").FirstOrDefault()?.Value
                ?? "net8.0";
            string published = Path.Combine(work, "published");
            ProcessResult publish = await ChildProcess.RunAsync(
                "dotnet",
                ["publish", project, "-c", "Release", "--disable-build-servers", "-o", published, "/p:GenerateErrorForMissingTargetingPacks=false",
                    "/p:RestoreNoCache=true", "/p:MicrosoftNETPlatformLibrary=Microsoft.NETCore.App", "--framework", framework],
                TimeSpan.FromMinutes(5));
            Assert.True(publish.ExitCode == 0, publish.ToString());
            Assert.DoesNotContain("NU1507", publish.Output, StringComparison.Ordinal);

            await RunAndLoadEveryScenarioAsync(config, job, published);
        }
        finally
        {
            Directory.Delete(work, recursive: true);
        }
    }

    /// <summary>Starts the published server as the agent does (local profile, the test database) and requests each scenario's path with its preset headers.</summary>
    private static async Task RunAndLoadEveryScenarioAsync(Dictionary<string, object?> config, Dictionary<string, object?> job, string published)
    {
        var database = new NpgsqlConnectionStringBuilder(Data.TestDatabase.ConnectionString);
        Dictionary<string, object?> profile = CrankFiles.Mapping(CrankFiles.Mapping(config, "profiles"), "local");
        var variables = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (Dictionary<string, object?> scope in new[]
        {
            CrankFiles.Mapping(config, "variables"),
            CrankFiles.Mapping(job, "variables"),
            CrankFiles.Mapping(profile, "variables"),
            CrankFiles.Mapping(CrankFiles.Mapping(CrankFiles.Mapping(profile, "jobs"), "application"), "variables"),
        })
        {
            foreach ((string name, object? value) in scope)
            {
                variables[name] = (string)value!;
            }
        }

        // As the README says for running against scripts/db.sh's cluster: --application.variables.databasePort (and
        // databaseServer) from the command line; and a free port instead of 8080.
        int port = ServerProcess.FreePort();
        variables["serverPort"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture);
        variables["databaseServer"] = database.Host!;
        variables["databasePort"] = database.Port.ToString(System.Globalization.CultureInfo.InvariantCulture);

        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(Path.Combine(published, "PlatformBenchmarks.dll"));
        foreach (string argument in CrankFiles.Render((string)job["arguments"]!, variables).Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string name, object? value) in CrankFiles.Mapping(job, "environmentVariables"))
        {
            start.Environment[name] = CrankFiles.Render((string)value!, variables);
        }

        using Process server = Process.Start(start) ?? throw new InvalidOperationException("Could not start the server.");
        try
        {
            string ready = (string)job["readyStateText"]!;
            while (await server.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(60)) is { } line && !line.Contains(ready, StringComparison.Ordinal))
            {
            }

            using var client = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}") };
            foreach ((string name, object? node) in CrankFiles.Mapping(config, "scenarios"))
            {
                Dictionary<string, object?> load = CrankFiles.Mapping(CrankFiles.Mapping((Dictionary<string, object?>)node!, "load"), "variables");
                using var request = new HttpRequestMessage(System.Net.Http.HttpMethod.Get, (string)load["path"]!);
                request.Headers.TryAddWithoutValidation("Accept", s_presetAccept[(string)load["presetHeaders"]!]);
                foreach (string header in Assert.IsType<List<object?>>(load["customHeaders"]).Cast<string>())
                {
                    string[] parts = header.Split(':', 2);
                    request.Headers.TryAddWithoutValidation(parts[0], parts[1].Trim());
                }

                using HttpResponseMessage response = await client.SendAsync(request);
                Assert.True(response.StatusCode == HttpStatusCode.OK, $"scenario {name}: {(string)load["path"]!} answered {(int)response.StatusCode}");
            }
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    /// <summary>
    /// The agent's NuGet.config step: the nearest NuGet.config from the project's folder up gets a clear, the agent's
    /// feeds, and (when it maps sources) a map of every package to each of them; with none, one is created in the
    /// project's folder. Returns the file patched.
    /// </summary>
    private static string PatchNuGetConfigAsTheAgentDoes(string projectFolder, EmptyFeed feed)
    {
        string? path = null;
        for (var folder = new DirectoryInfo(projectFolder); folder is not null && path is null; folder = folder.Parent)
        {
            path = folder.GetFiles().FirstOrDefault(f => f.Name.Equals("nuget.config", StringComparison.OrdinalIgnoreCase))?.FullName;
        }

        XDocument document = path is null ? new XDocument(new XElement("configuration", new XElement("packageSources", new XElement("clear")))) : XDocument.Load(path);
        path ??= Path.Combine(projectFolder, "NuGet.config");
        XElement sources = document.Root!.Element("packageSources")!;
        if (sources.Element("clear") is null)
        {
            sources.AddFirst(new XElement("clear"));
        }

        foreach (string key in s_agentFeeds)
        {
            // The agent's feeds are https; the stand-in is plain HTTP on loopback, which NuGet accepts only when told.
            sources.Add(new XElement("add", new XAttribute("key", key), new XAttribute("value", feed.IndexOf(key)), new XAttribute("allowInsecureConnections", "true")));
            document.Root.Element("packageSourceMapping")?.Add(new XElement("packageSource", new XAttribute("key", key), new XElement("package", new XAttribute("pattern", "*"))));
        }

        document.Save(path);
        return path;
    }

    /// <summary>The agent's search for global.json: the project's folder, then each parent; the file's sdk.version.</summary>
    private static string SdkOfTheNearestGlobalJson(string projectFolder)
    {
        for (var folder = new DirectoryInfo(projectFolder); folder is not null; folder = folder.Parent)
        {
            string path = Path.Combine(folder.FullName, "global.json");
            if (File.Exists(path))
            {
                using var document = System.Text.Json.JsonDocument.Parse(File.ReadAllText(path));
                return document.RootElement.GetProperty("sdk").GetProperty("version").GetString()!;
            }
        }

        throw new FileNotFoundException($"no global.json above {projectFolder}");
    }

    /// <summary>An SDK version's feature band: 10.0.401 → 10.0.4.</summary>
    private static string FeatureBand(string version)
    {
        string[] parts = version.Split('-')[0].Split('.');
        return $"{parts[0]}.{parts[1]}.{int.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture) / 100}";
    }

    /// <summary>A NuGet v3 feed with no packages: a service index naming a package base address where every lookup is 404.</summary>
    private sealed class EmptyFeed : IDisposable
    {
        private readonly HttpListener _listener = new();
        private readonly int _port = ServerProcess.FreePort();
        private readonly Task _serving;

        private EmptyFeed()
        {
            _listener.Prefixes.Add($"http://127.0.0.1:{_port}/");
            _listener.Start();
            _serving = ServeAsync();
        }

        public static EmptyFeed Start() => new();

        public string IndexOf(string key) => $"http://127.0.0.1:{_port}/{key}/index.json";

        public void Dispose()
        {
            _listener.Stop();
            _listener.Close();
            _ = _serving.ContinueWith(static _ => { }, TaskScheduler.Default);
        }

        private async Task ServeAsync()
        {
            while (_listener.IsListening)
            {
                HttpListenerContext context = await _listener.GetContextAsync();
                string path = context.Request.Url!.AbsolutePath;
                if (path.EndsWith("/index.json", StringComparison.Ordinal) && path.Count(c => c == '/') == 2)
                {
                    byte[] index = System.Text.Encoding.UTF8.GetBytes($$"""{"version":"3.0.0","resources":[{"@id":"http://127.0.0.1:{{_port}}{{path[..path.LastIndexOf('/')]}}/flat/","@type":"PackageBaseAddress/3.0.0"}]}""");
                    context.Response.ContentType = "application/json";
                    await context.Response.OutputStream.WriteAsync(index);
                }
                else
                {
                    context.Response.StatusCode = 404;
                }

                context.Response.Close();
            }
        }
    }

    private static async Task CopyTrackedFilesAsync(string from, string to)
    {
        ProcessResult files = await ChildProcess.RunAsync("git", ["-C", from, "ls-files"], TimeSpan.FromSeconds(30));
        Assert.True(files.ExitCode == 0, files.ToString());
        foreach (string file in files.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string target = Path.Combine(to, file);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(Path.Combine(from, file), target);
        }
    }
}
