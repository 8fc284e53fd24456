using System.IO.Compression;
using System.Text;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>
/// A temporary directory laid out like the venue's static files: a served folder with files of its types, Brotli and
/// gzip twins for the text ones, and a sibling folder outside it that links may point to. Deleted on dispose.
/// </summary>
internal sealed class StaticDirectory : IDisposable
{
    public StaticDirectory()
    {
        Base = Directory.CreateTempSubdirectory("pb-static-").FullName;
        Served = Directory.CreateDirectory(Path.Join(Base, "static")).FullName;
        Outside = Directory.CreateDirectory(Path.Join(Base, "secret")).FullName;
        File.WriteAllText(Path.Join(Outside, "passwd"), "root:x:0:0\n");
        Files = new StaticFiles(Served, Time);
    }

    /// <summary>The store's clock: it stands still until a test advances it.</summary>
    public FakeTimeProvider Time { get; } = new();

    /// <summary>The store over <see cref="Served"/>.</summary>
    public StaticFiles Files { get; }

    public string Base { get; }

    public string Served { get; }

    public string Outside { get; }

    /// <summary>Writes <paramref name="name"/> under the served folder, and its twins when asked.</summary>
    public byte[] Write(string name, string text, bool twins = false) => Write(name, Encoding.UTF8.GetBytes(text), twins);

    public byte[] Write(string name, byte[] content, bool twins = false)
    {
        string path = Path.Join(Served, name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, content);
        if (twins)
        {
            File.WriteAllBytes(path + ".br", Brotli(content));
            File.WriteAllBytes(path + ".gz", Gzip(content));
        }

        return content;
    }

    /// <summary>Replaces a file's content and moves its modification time, as an editor saving it would.</summary>
    public void Change(string name, string text, DateTime modified)
    {
        string path = Path.Join(Served, name);
        File.WriteAllText(path, text);
        File.SetLastWriteTimeUtc(path, modified);
    }

    public static byte[] Brotli(byte[] content)
    {
        using var output = new MemoryStream();
        using (var brotli = new BrotliStream(output, CompressionLevel.SmallestSize))
        {
            brotli.Write(content);
        }

        return output.ToArray();
    }

    public static byte[] Gzip(byte[] content)
    {
        using var output = new MemoryStream();
        using (var gzip = new GZipStream(output, CompressionLevel.SmallestSize))
        {
            gzip.Write(content);
        }

        return output.ToArray();
    }

    public static byte[] Unbrotli(byte[] compressed)
    {
        using var output = new MemoryStream();
        using (var brotli = new BrotliStream(new MemoryStream(compressed), CompressionMode.Decompress))
        {
            brotli.CopyTo(output);
        }

        return output.ToArray();
    }

    public static byte[] Ungzip(byte[] compressed)
    {
        using var output = new MemoryStream();
        using (var gzip = new GZipStream(new MemoryStream(compressed), CompressionMode.Decompress))
        {
            gzip.CopyTo(output);
        }

        return output.ToArray();
    }

    public void Dispose() => Directory.Delete(Base, recursive: true);
}
