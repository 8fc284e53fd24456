using System.Collections.Concurrent;
using System.IO.Compression;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The files <c>GET /static/{file}</c> serves, read from one directory and held in memory with their precompressed
/// <c>.br</c> and <c>.gz</c> twins (HttpArena's static profile; an engine entry may cache, its engine.md sets no rule).
/// A file is read on its first request, and a request that finds its copy checked more than
/// <see cref="RecheckInterval"/> ago compares the file's size and modification time again (and its twins'), re-reading
/// what changed: a change on disk is served within that interval and the time the check takes. A file that is gone is
/// forgotten. Missing files are never remembered, so the cache holds only files that exist.
/// </summary>
/// <remarks>
/// Held in memory because a response then costs one copy, from the held bytes into the connection's output; reading
/// the file per request costs the same copy from the page cache plus system calls (docs/decisions/0004-static-files-in-memory.md).
/// The re-check rides on requests rather than on a file-system watcher: it needs no thread and no inotify instance, it
/// sees changes a watcher misses on some mounts, and a watcher would still need it as a backstop.
/// </remarks>
internal sealed class StaticFiles
{
    /// <summary>How long a held copy is served without looking at the file again.</summary>
    public static readonly TimeSpan RecheckInterval = TimeSpan.FromSeconds(1);

    private readonly ConcurrentDictionary<string, StaticFile> _files = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, StaticFile>.AlternateLookup<ReadOnlySpan<char>> _byName;
    private readonly TimeProvider _time;
    private readonly long _recheckTicks;

    public StaticFiles(string directory, TimeProvider time)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        ArgumentNullException.ThrowIfNull(time);
        Directory = directory;
        _time = time;
        _recheckTicks = (long)(RecheckInterval.TotalSeconds * time.TimestampFrequency);
        _byName = _files.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>The directory as configured (a symbolic link to it is followed).</summary>
    public string Directory { get; }

    /// <summary>For the banner: the directory, and whether it is there.</summary>
    public string Describe()
        => System.IO.Directory.Exists(Directory) ? Directory : $"{Directory} (MISSING: every /static/ request answers 404)";

    /// <summary>The held copy of <paramref name="name"/> when it was checked within <see cref="RecheckInterval"/>: the fast path.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetFresh(ReadOnlySpan<char> name, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out StaticFile? file)
        => _byName.TryGetValue(name, out file) && _time.GetTimestamp() - Volatile.Read(ref file.CheckedAt) < _recheckTicks;

    /// <summary>
    /// The file <paramref name="name"/> (a validated relative name, see <see cref="StaticFileName"/>): read now, or checked
    /// against the disk if its copy is due, or null when no regular file of that name lies within <see cref="Directory"/>.
    /// </summary>
    public async ValueTask<StaticFile?> GetAsync(string name)
    {
        if (_files.TryGetValue(name, out StaticFile? held))
        {
            long checkedAt = Volatile.Read(ref held.CheckedAt);
            long now = _time.GetTimestamp();
            // One request re-checks; the others meanwhile serve the copy they found, at most one check's time older.
            if (now - checkedAt < _recheckTicks || Interlocked.CompareExchange(ref held.CheckedAt, now, checkedAt) != checkedAt)
            {
                return held;
            }

            if (Stamps(name) is { } stamps && stamps.AsSpan().SequenceEqual(held.Stamps))
            {
                return held;
            }
        }

        StaticFile? loaded = await LoadAsync(name);
        if (loaded is null)
        {
            _files.TryRemove(name, out _);
            return null;
        }

        _files[name] = loaded;
        return loaded;
    }

    /// <summary>The file and its twins as they are on disk now, or null when the file is not servable.</summary>
    private async ValueTask<StaticFile?> LoadAsync(string name)
    {
        FileStamp[]? stamps = Stamps(name);
        if (stamps is null)
        {
            return null;
        }

        string[] paths = stamps.Select(stamp => stamp.Path).ToArray();
        byte[] content = await File.ReadAllBytesAsync(paths[0]);
        byte[]? brotli = paths[1].Length == 0 ? null : await ReadTwinAsync(paths[1], content, static input => new BrotliStream(input, CompressionMode.Decompress));
        byte[]? gzip = paths[2].Length == 0 ? null : await ReadTwinAsync(paths[2], content, static input => new GZipStream(input, CompressionMode.Decompress));
        return new StaticFile(content, brotli, gzip, StaticContentTypes.For(name), stamps, _time.GetTimestamp());
    }

    /// <summary>
    /// A precompressed twin, served only when it decompresses to the file's exact bytes: one made from an older version
    /// of the file, or damaged, would otherwise answer the clients that accept it with other content than the rest get.
    /// </summary>
    private static async ValueTask<byte[]?> ReadTwinAsync(string path, byte[] content, Func<Stream, Stream> decompressor)
    {
        byte[] twin = await File.ReadAllBytesAsync(path);
        try
        {
            using var decompressed = new MemoryStream(content.Length);
            await using (Stream stream = decompressor(new MemoryStream(twin, writable: false)))
            {
                await stream.CopyToAsync(decompressed);
            }

            return decompressed.GetBuffer().AsSpan(0, (int)decompressed.Length).SequenceEqual(content) ? twin : null;
        }
        catch (InvalidDataException)
        {
            return null;
        }
    }

    /// <summary>
    /// The stamps of the file (first) and its <c>.br</c> and <c>.gz</c> twins (an empty path for a twin that is not
    /// there), or null when the file itself is not a regular file within the directory.
    /// </summary>
    private FileStamp[]? Stamps(string name)
    {
        string? root = ContainedPath.Resolve(Directory);
        if (root is null || Stamp(root, name) is not { } file)
        {
            return null;
        }

        return [file, Stamp(root, name + ".br") ?? FileStamp.None, Stamp(root, name + ".gz") ?? FileStamp.None];
    }

    private static FileStamp? Stamp(string root, string name)
    {
        if (ContainedPath.ResolveWithin(root, name) is not { } path)
        {
            return null;
        }

        var info = new FileInfo(path);
        return info.Exists ? new FileStamp(path, info.Length, info.LastWriteTimeUtc.Ticks) : null;
    }
}

/// <summary>One file as last read: its bytes, its twins' (null when absent), its Content-Type value and what it was read from.</summary>
internal sealed class StaticFile(byte[] content, byte[]? brotli, byte[]? gzip, byte[] contentType, FileStamp[] stamps, long checkedAt)
{
    public byte[] Content { get; } = content;

    public byte[]? Brotli { get; } = brotli;

    public byte[]? Gzip { get; } = gzip;

    public byte[] ContentType { get; } = contentType;

    internal FileStamp[] Stamps { get; } = stamps;

    /// <summary>The TimeProvider timestamp of the last comparison with the disk; moved forward by the request that re-checks.</summary>
    internal long CheckedAt = checkedAt;
}

/// <summary>What a file was when read: its real path, size and modification time (a different one of either means it changed).</summary>
internal readonly record struct FileStamp(string Path, long Length, long LastWriteTicks)
{
    /// <summary>A twin that is not there.</summary>
    public static FileStamp None { get; } = new(string.Empty, 0, 0);
}
