using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's <c>static</c> profile: <c>GET /static/{file}</c> answers the file from <see cref="StaticFiles"/> with its
/// Content-Type, as its Brotli or gzip twin when the request's Accept-Encoding prefers one (Content-Encoding, and Vary:
/// Accept-Encoding on every answer of a file that has a twin, RFC 9110 §12.5.5), and 404 for a name that is refused or
/// no file. HEAD gets the same fields without the body.
/// </summary>
internal sealed partial class HttpArenaRoutes
{
    private static ReadOnlySpan<byte> NotFound => "Not found.\n"u8;

    /// <summary>The static route for a GET or HEAD of <c>/static/</c> and <paramref name="encodedName"/>, the file's name as the path carries it.</summary>
    public static ValueTask Static(ReadOnlySpan<byte> encodedName, HttpRequest request, HttpResponse response, StaticFiles? files)
    {
        Span<char> name = stackalloc char[StaticFileName.MaxLength];
        if (files is null || !StaticFileName.TryDecode(encodedName, name, out int length))
        {
            response.WriteText(HttpStatus.NotFound, NotFound);
            return default;
        }

        var accepted = AcceptEncoding.Read(request);
        if (files.TryGetFresh(name[..length], out StaticFile? file))
        {
            WriteFile(response, file, accepted);
            return default;
        }

        return StaticFromDiskAsync(response, files, name[..length].ToString(), accepted);
    }

    /// <summary>A file read for the first time, or due for its check against the disk.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async ValueTask StaticFromDiskAsync(HttpResponse response, StaticFiles files, string name, AcceptEncoding accepted)
    {
        if (await files.GetAsync(name) is { } file)
        {
            WriteFile(response, file, accepted);
        }
        else
        {
            response.WriteText(HttpStatus.NotFound, NotFound);
        }
    }

    private static void WriteFile(HttpResponse response, StaticFile file, AcceptEncoding accepted)
    {
        if (file.Brotli is null && file.Gzip is null)
        {
            response.Write(HttpStatus.Ok, file.ContentType, file.Content);
            return;
        }

        switch (accepted.Choose(file.Brotli is not null, file.Gzip is not null))
        {
            case ContentCoding.Brotli:
                response.Write(HttpStatus.Ok, file.ContentType, file.Brotli, ContentCodingFields.For(ContentCoding.Brotli));
                break;
            case ContentCoding.Gzip:
                response.Write(HttpStatus.Ok, file.ContentType, file.Gzip, ContentCodingFields.For(ContentCoding.Gzip));
                break;
            default:
                response.Write(HttpStatus.Ok, file.ContentType, file.Content, ContentCodingFields.For(ContentCoding.Identity));
                break;
        }
    }
}
