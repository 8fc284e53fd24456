using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>TFB's fortune data and the page its verifier expects, written out once for every test that needs them.</summary>
internal static class TfbFortunes
{
    /// <summary>The fortune table's rows (docs/tfb-rules.md §8), byte for byte: U+2014 em dashes, the Japanese row, the script row.</summary>
    public static Fortune[] Rows =>
    [
        new(1, "fortune: No such file or directory"),
        new(2, "A computer scientist is someone who fixes things that aren't broken."),
        new(3, "After enough decimal places, nobody gives a damn."),
        new(4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"),
        new(5, "A computer program does what you tell it to do, not what you want it to do."),
        new(6, "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen"),
        new(7, "Any program that runs right is obsolete."),
        new(8, "A list is only as strong as its weakest link. \u2014 Donald Knuth"),
        new(9, "Feature: A bug with seniority."),
        new(10, "Computers make very fast, very accurate mistakes."),
        new(11, "<script>alert(\"This should not be displayed in a browser alert box.\");</script>"),
        new(12, "\u30D5\u30EC\u30FC\u30E0\u30EF\u30FC\u30AF\u306E\u30D9\u30F3\u30C1\u30DE\u30FC\u30AF"),
    ];

    /// <summary>The fortunes page (docs/tfb-rules.md §4.5), byte for byte, with the request-time fortune sorted in.</summary>
    public const string ExpectedPage =
        "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>"
        + "<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>"
        + "<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>"
        + "<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>"
        + "<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>"
        + "<tr><td>8</td><td>A list is only as strong as its weakest link. \u2014 Donald Knuth</td></tr>"
        + "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>"
        + "<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>"
        + "<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>"
        + "<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>"
        + "<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen</td></tr>"
        + "<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>"
        + "<tr><td>1</td><td>fortune: No such file or directory</td></tr>"
        + "<tr><td>12</td><td>\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af</td></tr>"
        + "</table></body></html>";
}
