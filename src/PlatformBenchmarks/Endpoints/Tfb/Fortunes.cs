using System.Buffers;
using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints.Tfb.Templates;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>
/// TFB fortunes test: every row read, one added at request time, sorted by message (ordinal), and rendered through
/// the compiled template in Templates/fortunes.html with HTML escaping (docs/tfb-rules.md §4.5). Nothing is cached.
/// </summary>
internal static class Fortunes
{
    // The charset is mandatory for TFB's verifier (docs/tfb-rules.md §3).
    public static ReadOnlySpan<byte> ContentType => "text/html; charset=utf-8"u8;

    private static readonly HtmlTemplate s_template = LoadTemplate();

    /// <summary>The compiled page template (the benchmarks render it with other escapers to compare).</summary>
    internal static HtmlTemplate Template => s_template;

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    /// <param name="loop">The loop of the request's connection: the read joins its batch.</param>
    public static async ValueTask HandleAsync(HttpResponse response, Database database, DataLoop loop)
    {
        if (!(await database.LoadFortunesAsync(loop)).TryGetValue(out List<Fortune>? fortunes, out DataFailure? failure))
        {
            DatabaseErrors.Write(response, failure);
            return;
        }

        Fortune.AddAdditionalAndSort(fortunes);
        Render(response.StartBody(), fortunes);
        response.WriteBuffered(HttpStatus.Ok, ContentType);
    }

    internal static void Render(IBufferWriter<byte> output, List<Fortune> fortunes) =>
        s_template.Render(output, fortunes, default(FortuneBinder));

    private static HtmlTemplate LoadTemplate()
    {
        using Stream stream = typeof(Fortunes).Assembly.GetManifestResourceStream("PlatformBenchmarks.Endpoints.Tfb.Templates.fortunes.html")
            ?? throw new InvalidOperationException("The fortunes template is not embedded.");
        using var reader = new StreamReader(stream);
        return HtmlTemplate.Compile(reader.ReadToEnd(), "id", "message");
    }

    private readonly struct FortuneBinder : IRowBinder<Fortune>
    {
        public void WriteField(int field, in Fortune row, IBufferWriter<byte> output)
        {
            if (field == 0)
            {
                HtmlWriter.WriteInt32(output, row.Id);
            }
            else
            {
                HtmlWriter.WriteEncoded(output, row.Message);
            }
        }
    }
}
