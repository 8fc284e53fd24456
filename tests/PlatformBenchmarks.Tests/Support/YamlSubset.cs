namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// Reads the YAML subset the crank configuration is written in. Anything outside the subset is an error, never a guess,
/// so a file this accepts means to every YAML parser what it means here. (The compose file and the crank connection
/// string are read with YamlDotNet, which the test project references; the crank tests can move to it too.)
/// </summary>
/// <remarks>
/// In: block mappings and block sequences indented with spaces, sequence items holding mappings (<c>- key: value</c>),
/// one-line plain, single-quoted and double-quoted scalars, comments, the empty flow collections <c>[]</c> and
/// <c>{}</c>. Out (rejected with the line number): tabs, anchors and aliases, tags, flow collections with content,
/// block scalars (<c>|</c>, <c>&gt;</c>), scalars continued on another line, complex keys, duplicate keys, several
/// documents, directives. Scalars stay strings (YAML would read <c>8080</c> as a number): the checks compare text.
/// </remarks>
internal static class YamlSubset
{
    /// <summary>A mapping (<see cref="Dictionary{TKey, TValue}"/>), a sequence (<see cref="List{T}"/>), a string or null.</summary>
    public static object? Parse(string text)
    {
        var parser = new Parser(Lines(text));
        return parser.ParseDocument();
    }

    private readonly record struct Line(int Number, int Indent, string Text);

    private static List<Line> Lines(string text)
    {
        var lines = new List<Line>();
        string[] raw = text.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        for (int i = 0; i < raw.Length; i++)
        {
            int number = i + 1;
            if (raw[i].Contains('\t', StringComparison.Ordinal))
            {
                throw Error(number, "tabs are outside the subset (YAML forbids them in indentation)");
            }

            string content = StripComment(raw[i]).TrimEnd();
            string trimmed = content.TrimStart(' ');
            if (trimmed.Length == 0)
            {
                continue;
            }

            if (trimmed.StartsWith("---", StringComparison.Ordinal) || trimmed.StartsWith("...", StringComparison.Ordinal) || trimmed.StartsWith('%'))
            {
                throw Error(number, "document markers and directives are outside the subset");
            }

            lines.Add(new Line(number, content.Length - trimmed.Length, trimmed));
        }

        return lines;
    }

    /// <summary>Drops a comment: a <c>#</c> at the start or after a space, outside a quoted scalar.</summary>
    private static string StripComment(string line)
    {
        char quote = '\0';
        for (int i = 0; i < line.Length; i++)
        {
            char c = line[i];
            if (quote == '\0')
            {
                bool tokenStart = i == 0 || line[i - 1] == ' ';
                if (c == '#' && tokenStart)
                {
                    return line[..i];
                }

                if (c is '\'' or '"' && tokenStart)
                {
                    quote = c;
                }
            }
            else if (quote == '"' && c == '\\')
            {
                i++; // an escaped character cannot close the scalar
            }
            else if (quote == '\'' && c == '\'' && i + 1 < line.Length && line[i + 1] == '\'')
            {
                i++; // '' is a quote inside a single-quoted scalar
            }
            else if (c == quote)
            {
                quote = '\0';
            }
        }

        return line;
    }

    private static FormatException Error(int line, string message) => new($"YAML line {line}: {message}");

    private sealed class Parser(List<Line> lines)
    {
        private int _position;

        public object? ParseDocument()
        {
            if (lines.Count == 0)
            {
                return null;
            }

            if (lines[0].Indent != 0)
            {
                throw Error(lines[0].Number, "the document must start at column 0");
            }

            object? document = IsSequenceItem(lines[0].Text) ? ParseSequence(0) : ParseMapping(0);
            if (_position < lines.Count)
            {
                throw Error(lines[_position].Number, "indentation does not match any enclosing block");
            }

            return document;
        }

        private static bool IsSequenceItem(string text) => text == "-" || text.StartsWith("- ", StringComparison.Ordinal);

        private object? ParseBlock(int indent) => IsSequenceItem(lines[_position].Text) ? ParseSequence(indent) : ParseMapping(indent);

        private Dictionary<string, object?> ParseMapping(int indent)
        {
            var mapping = new Dictionary<string, object?>(StringComparer.Ordinal);
            while (_position < lines.Count && lines[_position].Indent >= indent)
            {
                Line line = lines[_position];
                if (line.Indent > indent)
                {
                    throw Error(line.Number, "unexpected indentation (a scalar continued on another line is outside the subset)");
                }

                if (IsSequenceItem(line.Text))
                {
                    break; // a sequence at the key's own indentation belongs to the key above; the caller takes it
                }

                (string key, string rest) = SplitKey(line.Text) ?? throw Error(line.Number, $"expected 'key: value', got '{line.Text}'");
                if (mapping.ContainsKey(key))
                {
                    throw Error(line.Number, $"duplicate key '{key}'");
                }

                _position++;
                mapping[key] = rest.Length > 0 ? ParseScalar(rest, line.Number) : ParseNested(indent);
            }

            return mapping;
        }

        /// <summary>The value of a key with nothing after its colon: a deeper block, a sequence at the same indentation, or null.</summary>
        private object? ParseNested(int indent)
        {
            if (_position >= lines.Count)
            {
                return null;
            }

            Line next = lines[_position];
            if (next.Indent > indent)
            {
                return ParseBlock(next.Indent);
            }

            return next.Indent == indent && IsSequenceItem(next.Text) ? ParseSequence(indent) : null;
        }

        private List<object?> ParseSequence(int indent)
        {
            var sequence = new List<object?>();
            while (_position < lines.Count && lines[_position].Indent == indent && IsSequenceItem(lines[_position].Text))
            {
                Line line = lines[_position];
                string rest = line.Text.Length > 1 ? line.Text[2..].TrimStart(' ') : string.Empty;
                if (rest.Length == 0)
                {
                    _position++;
                    sequence.Add(_position < lines.Count && lines[_position].Indent > indent ? ParseBlock(lines[_position].Indent) : null);
                }
                else if (IsSequenceItem(rest) || SplitKey(rest) is not null)
                {
                    // "- key: value" opens a mapping whose keys line up with "key": re-read the line from there.
                    int column = indent + (line.Text.Length - rest.Length);
                    lines[_position] = new Line(line.Number, column, rest);
                    sequence.Add(ParseBlock(column));
                }
                else
                {
                    _position++;
                    sequence.Add(ParseScalar(rest, line.Number));
                }
            }

            if (_position < lines.Count && lines[_position].Indent > indent)
            {
                throw Error(lines[_position].Number, "unexpected indentation after a sequence item");
            }

            return sequence;
        }

        /// <summary>Splits "key: rest" (or "key:"), or returns null when the text is not a mapping entry.</summary>
        private static (string Key, string Value)? SplitKey(string text)
        {
            int colon;
            string key;
            if (text[0] is '\'' or '"')
            {
                int close = ClosingQuote(text);
                if (close < 0 || close + 1 >= text.Length || text[close + 1] != ':')
                {
                    return null;
                }

                colon = close + 1;
                key = ParseQuoted(text[..(close + 1)], 0);
            }
            else
            {
                colon = text.IndexOf(": ", StringComparison.Ordinal);
                if (colon < 0)
                {
                    if (!text.EndsWith(':'))
                    {
                        return null;
                    }

                    colon = text.Length - 1;
                }

                key = text[..colon].TrimEnd(' ');
                if (key.Length == 0 || key[0] is '?' or '[' or '{' or '&' or '*' or '!' or '|' or '>' or '%' or '@' or '`')
                {
                    return null;
                }
            }

            if (colon + 1 < text.Length && text[colon + 1] != ' ')
            {
                return null;
            }

            return (key, text[(colon + 1)..].Trim(' '));
        }

        private static int ClosingQuote(string text)
        {
            char quote = text[0];
            for (int i = 1; i < text.Length; i++)
            {
                if (quote == '"' && text[i] == '\\')
                {
                    i++;
                }
                else if (text[i] == quote)
                {
                    if (quote == '\'' && i + 1 < text.Length && text[i + 1] == '\'')
                    {
                        i++; // '' is an escaped quote
                    }
                    else
                    {
                        return i;
                    }
                }
            }

            return -1;
        }

        private static object ParseScalar(string text, int line)
        {
            switch (text)
            {
                case "[]":
                    return new List<object?>();
                case "{}":
                    return new Dictionary<string, object?>(StringComparer.Ordinal);
            }

            if (text[0] is '\'' or '"')
            {
                if (ClosingQuote(text) != text.Length - 1)
                {
                    throw Error(line, $"a quoted scalar must end the line (multi-line scalars are outside the subset): {text}");
                }

                return ParseQuoted(text, line);
            }

            if (text[0] is '[' or ']' or '{' or '}' or ',' or '&' or '*' or '!' or '|' or '>' or '%' or '@' or '`' or '#')
            {
                throw Error(line, $"'{text[0]}' starts a construct outside the subset (flow collection, anchor, alias, tag or block scalar): {text}");
            }

            if (text is "-" or "?" or ":" || text.StartsWith("- ", StringComparison.Ordinal) || text.StartsWith("? ", StringComparison.Ordinal) ||
                text.StartsWith(": ", StringComparison.Ordinal) || text.Contains(": ", StringComparison.Ordinal) ||
                text.Contains(" #", StringComparison.Ordinal) || text.EndsWith(':'))
            {
                throw Error(line, $"not a plain scalar (quote it): {text}");
            }

            return text;
        }

        private static string ParseQuoted(string text, int line)
        {
            string inner = text[1..^1];
            if (text[0] == '\'')
            {
                if (inner.Replace("''", string.Empty, StringComparison.Ordinal).Contains('\'', StringComparison.Ordinal))
                {
                    throw Error(line, $"a single quote inside a single-quoted scalar must be doubled: {text}");
                }

                return inner.Replace("''", "'", StringComparison.Ordinal);
            }

            var value = new System.Text.StringBuilder(inner.Length);
            for (int i = 0; i < inner.Length; i++)
            {
                char c = inner[i];
                if (c == '"')
                {
                    throw Error(line, $"an unescaped double quote inside a double-quoted scalar: {text}");
                }

                if (c != '\\')
                {
                    value.Append(c);
                    continue;
                }

                if (++i >= inner.Length)
                {
                    throw Error(line, $"a lone backslash ends a double-quoted scalar: {text}");
                }

                value.Append(inner[i] switch
                {
                    '\\' => '\\',
                    '"' => '"',
                    '/' => '/',
                    'n' => '\n',
                    't' => '\t',
                    _ => throw Error(line, $"the escape \\{inner[i]} is outside the subset: {text}"),
                });
            }

            return value.ToString();
        }
    }
}
