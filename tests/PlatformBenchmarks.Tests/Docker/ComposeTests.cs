using Npgsql;
using PlatformBenchmarks.Tests.Support;
using YamlDotNet.RepresentationModel;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// What <c>docker compose -f docker/compose.yaml up --build</c> would do with the file, short of running Docker (this
/// machine has no daemon): build each image from its context, start the servers where they reach the database under the
/// host name their images connect to, and publish each server on a host port of its own.
/// </summary>
public class ComposeTests
{
    private static readonly string s_composeFolder = Repository.PathOf("docker");

    /// <summary>(service, its build context, its dockerfile) for every service compose builds.</summary>
    private static IEnumerable<(string Service, string Context, string Dockerfile, YamlMappingNode Node)> Builds()
    {
        foreach ((YamlNode key, YamlNode value) in Mapping(Yaml.Load("docker", "compose.yaml"), "services"))
        {
            var service = (YamlMappingNode)value;
            if (service.Children.TryGetValue(new YamlScalarNode("build"), out YamlNode? build))
            {
                // Compose resolves the context against the file's folder, and the dockerfile against the context.
                string context = Path.GetFullPath(Path.Combine(s_composeFolder, Scalar(build, "context")));
                yield return (((YamlScalarNode)key).Value!, context, Path.GetFullPath(Path.Combine(context, Scalar(build, "dockerfile"))), service);
            }
        }
    }

    private static bool IsServer(string dockerfile) => Path.GetDirectoryName(dockerfile) == TfbSubmission.Folder;

    [Fact]
    public void EveryImageFindsItsDockerfileAndEverythingItCopiesInItsContext()
    {
        Assert.NotEmpty(Builds());
        foreach ((string service, string context, string dockerfile, YamlMappingNode _) in Builds())
        {
            Assert.True(File.Exists(dockerfile), $"{service}: {dockerfile} does not exist");
            Assert.All(Dockerfile.ContextSources(dockerfile), source =>
                Assert.True(Path.Exists(Path.Combine(context, source)), $"{service}: COPY {source} is not in the build context {context}"));
        }
    }

    [Fact]
    public void EveryServerReachesTheDatabaseUnderTheHostItsImageConnectsTo()
    {
        List<(string Service, string Context, string Dockerfile, YamlMappingNode Node)> builds = [.. Builds()];
        List<(string Service, string Context, string Dockerfile, YamlMappingNode Node)> databases = [.. builds.Where(b => Dockerfile.Env(b.Dockerfile, "POSTGRES_DB") is not null)];
        Assert.Single(databases);
        (string databaseService, string _, string databaseImage, YamlMappingNode databaseNode) = databases[0];
        // On compose's network a service answers to its name and to its hostname.
        string?[] names = [databaseService, Optional(databaseNode, "hostname")];

        Assert.Contains(builds, b => IsServer(b.Dockerfile));
        foreach ((string service, string _, string dockerfile, YamlMappingNode _) in builds.Where(b => IsServer(b.Dockerfile)))
        {
            var connection = new NpgsqlConnectionStringBuilder(Dockerfile.Env(dockerfile, "ConnectionString"));

            Assert.Contains(connection.Host, names);
            Assert.Contains(connection.Port, Dockerfile.Exposed(databaseImage));
            Assert.Equal(Dockerfile.Env(databaseImage, "POSTGRES_DB"), connection.Database);
            Assert.Equal(Dockerfile.Env(databaseImage, "POSTGRES_USER"), connection.Username);
            Assert.True(Dockerfile.Env(databaseImage, "POSTGRES_PASSWORD") == connection.Password, $"{service}: the password differs from the database image's");
        }
    }

    [Fact]
    public void EveryServerIsPublishedOnAHostPortOfItsOwnToThePortItListensOn()
    {
        var hostPorts = new List<string>();
        foreach ((string service, string _, string dockerfile, YamlMappingNode node) in Builds().Where(b => IsServer(b.Dockerfile)))
        {
            var ports = (YamlSequenceNode)node["ports"];
            foreach (string mapping in ports.Select(p => ((YamlScalarNode)p).Value!))
            {
                string[] parts = mapping.Split(':');
                Assert.True(parts.Length == 2, $"{service}: ports entry '{mapping}' is not host:container");
                Assert.Contains(int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture), Dockerfile.Exposed(dockerfile));
                hostPorts.Add(parts[0]);
            }
        }

        Assert.NotEmpty(hostPorts);
        // Two services on one host port: the second fails to start when both profiles run.
        Assert.Equal(hostPorts.Distinct(StringComparer.Ordinal).Count(), hostPorts.Count);
    }

    private static YamlMappingNode Mapping(YamlMappingNode node, string key) => (YamlMappingNode)node[key];

    private static string Scalar(YamlNode node, string key) => ((YamlScalarNode)((YamlMappingNode)node)[key]).Value!;

    private static string? Optional(YamlMappingNode node, string key) =>
        node.Children.TryGetValue(new YamlScalarNode(key), out YamlNode? value) ? ((YamlScalarNode)value).Value : null;
}
