using System.Buffers;
using System.Buffers.Text;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Turns a request's decoded header block into the engine's request head, the layout every codec fills
/// (docs/decisions/0013-protocol-seam.md): a request line <c>METHOD target HTTP/2</c>, then each field as a
/// <c>name: value</c> line, then an empty line, with a <see cref="RequestHead"/> describing them. :authority becomes the
/// first field, <c>host</c>. It checks what RFC 9113 §8.2 and §8.3 ask of a request as the fields arrive and keeps the
/// first problem (<see cref="Error"/>); the decoder goes on to the block's end regardless, to stay in step with the peer.
/// One builder serves one stream's head at a time; the decoder reaches it through <see cref="Sink"/>.
/// </summary>
internal sealed class Http2RequestHeadBuilder
{
    // RFC 9110 §5.6.2's tchar without the uppercase letters: an HTTP/2 field name (RFC 9113 §8.2.1).
    private static readonly SearchValues<byte> s_lowercaseTokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"u8);

    // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    private static readonly SearchValues<byte> s_schemeChars =
        SearchValues.Create("+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"u8);

    // The names the checks single out, by their static index, or below 0 for the names the static table lacks.
    private const int HostIndex = 38;
    private const int TransferEncodingIndex = 57;
    private const int TeIndex = -1;
    private const int ConnectionSpecific = -2;

    private byte[] _head = new byte[256];
    private int _length;

    // The pseudo-headers' values end to end; each part's start, or -1 when absent.
    private byte[] _pseudo = new byte[128];
    private int _pseudoLength;
    private Part _method;
    private Part _scheme;
    private Part _authority;
    private Part _path;

    private bool _fieldsStarted;
    private int _maxFieldCount;
    private RequestHead _info;

    /// <summary>The first problem found in the head, or none.</summary>
    public Http2HeadError Error { get; private set; }

    /// <summary>The head's bytes, valid after <see cref="Complete"/> until the next <see cref="Start"/>.</summary>
    public ReadOnlySpan<byte> HeadBytes => _head.AsSpan(0, _length);

    /// <summary>The bytes the head's buffer has grown to (the decoder's header list limit bounds it).</summary>
    public int Capacity => _head.Length;

    /// <summary>What <see cref="HeadBytes"/> holds, valid after <see cref="Complete"/>.</summary>
    public ref readonly RequestHead Head => ref _info;

    /// <summary>Whether a Content-Length came, in <see cref="RequestHead.ContentLength"/>.</summary>
    public bool HasContentLength => _info.BodyKind == BodyKind.ContentLength;

    /// <summary>Begins a new head of at most <paramref name="maxFieldCount"/> fields (:authority's host line counts).</summary>
    public void Start(int maxFieldCount)
    {
        _length = 0;
        _pseudoLength = 0;
        _method = _scheme = _authority = _path = Part.Absent;
        _fieldsStarted = false;
        _maxFieldCount = maxFieldCount;
        _info = default;
        _info.Version = HttpVersion.Http2;
        _info.KeepAlive = true;
        _info.QueryStart = -1;
        Error = Http2HeadError.None;
    }

    /// <summary>What the decoder hands the fields to: a struct, so its calls are direct.</summary>
    public FieldSink Sink => new(this);

    public void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed)
    {
        if (Error != Http2HeadError.None)
        {
            return;
        }

        if (!ValueIsValid(value))
        {
            Error = Http2HeadError.InvalidFieldValue;
        }
        else if ((uint)(staticNameIndex - 1) < HpackStaticTable.Status500 || (staticNameIndex == 0 && !name.IsEmpty && name[0] == (byte)':'))
        {
            OnPseudoHeader(staticNameIndex, name, value);
        }
        else
        {
            OnRegularField(staticNameIndex, name, value);
        }
    }

    /// <summary>Ends the head: the request line is written if no regular field came, the empty line after the fields.</summary>
    public Http2HeadError Complete()
    {
        if (Error == Http2HeadError.None && !_fieldsStarted)
        {
            WriteRequestLine();
        }

        if (Error == Http2HeadError.None)
        {
            Append("\r\n"u8);
        }

        return Error;
    }

    private void OnPseudoHeader(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        if (_fieldsStarted)
        {
            Error = Http2HeadError.PseudoHeaderAfterField;
            return;
        }

        ref Part part = ref PseudoHeader(staticNameIndex != 0 ? staticNameIndex : PseudoHeaderIndex(name));
        if (Unsafe.IsNullRef(ref part))
        {
            Error = Http2HeadError.UnknownPseudoHeader;
            return;
        }

        if (part.Start >= 0)
        {
            Error = Http2HeadError.DuplicatePseudoHeader;
            return;
        }

        if (_pseudo.Length < _pseudoLength + value.Length)
        {
            Array.Resize(ref _pseudo, Math.Max(_pseudoLength + value.Length, 2 * _pseudo.Length));
        }

        value.CopyTo(_pseudo.AsSpan(_pseudoLength));
        part = new Part(_pseudoLength, value.Length);
        _pseudoLength += value.Length;
    }

    private ref Part PseudoHeader(int staticNameIndex)
    {
        switch (staticNameIndex)
        {
            case HpackStaticTable.Authority:
                return ref _authority;
            case HpackStaticTable.MethodGet or HpackStaticTable.MethodPost:
                return ref _method;
            case HpackStaticTable.PathRoot or HpackStaticTable.PathIndexHtml:
                return ref _path;
            case HpackStaticTable.SchemeHttp or HpackStaticTable.SchemeHttps:
                return ref _scheme;
            default:
                return ref Unsafe.NullRef<Part>();
        }
    }

    // A pseudo-header's name sent as a literal: the index of the static entry with that name, or 0.
    private static int PseudoHeaderIndex(ReadOnlySpan<byte> name) =>
        name.SequenceEqual(":method"u8) ? HpackStaticTable.MethodGet
        : name.SequenceEqual(":path"u8) ? HpackStaticTable.PathRoot
        : name.SequenceEqual(":scheme"u8) ? HpackStaticTable.SchemeHttp
        : name.SequenceEqual(":authority"u8) ? HpackStaticTable.Authority
        : 0;

    private void OnRegularField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        if (!_fieldsStarted)
        {
            _fieldsStarted = true;
            if (!WriteRequestLine())
            {
                return;
            }
        }

        if (staticNameIndex == 0 && (name.IsEmpty || name.ContainsAnyExcept(s_lowercaseTokenChars)))
        {
            Error = Http2HeadError.InvalidFieldName;
            return;
        }

        switch (staticNameIndex != 0 ? staticNameIndex : SpecialNameIndex(name))
        {
            case HpackStaticTable.ContentLength:
                if (!ReadContentLength(value))
                {
                    return;
                }

                break;
            case HostIndex:
                if (_authority.Start >= 0)
                {
                    // §8.3.1: the Host a client also sends must name what :authority names; it is written once, from :authority.
                    if (!value.SequenceEqual(_authority.Of(_pseudo)))
                    {
                        Error = Http2HeadError.InvalidAuthority;
                    }

                    return;
                }

                break;
            case TransferEncodingIndex or ConnectionSpecific:
                Error = Http2HeadError.ConnectionSpecificField;
                return;
            case TeIndex:
                if (!value.SequenceEqual("trailers"u8))
                {
                    Error = Http2HeadError.InvalidTe;
                    return;
                }

                break;
        }

        AppendField(name, value);
    }

    // A literal name's index among the names the checks single out, or 0.
    private static int SpecialNameIndex(ReadOnlySpan<byte> name) => name.Length switch
    {
        2 when name.SequenceEqual("te"u8) => TeIndex,
        4 when name.SequenceEqual("host"u8) => HostIndex,
        7 when name.SequenceEqual("upgrade"u8) => ConnectionSpecific,
        10 when name.SequenceEqual("connection"u8) || name.SequenceEqual("keep-alive"u8) => ConnectionSpecific,
        14 when name.SequenceEqual("content-length"u8) => HpackStaticTable.ContentLength,
        16 when name.SequenceEqual("proxy-connection"u8) => ConnectionSpecific,
        17 when name.SequenceEqual("transfer-encoding"u8) => TransferEncodingIndex,
        _ => 0,
    };

    private bool ReadContentLength(ReadOnlySpan<byte> value)
    {
        if (value.IsEmpty || value.ContainsAnyExceptInRange((byte)'0', (byte)'9')
            || !Utf8Parser.TryParse(value, out long length, out int consumed) || consumed != value.Length
            || (_info.BodyKind == BodyKind.ContentLength && _info.ContentLength != length))
        {
            Error = Http2HeadError.InvalidContentLength;
            return false;
        }

        _info.BodyKind = BodyKind.ContentLength;
        _info.ContentLength = length;
        return true;
    }

    /// <summary>Checks the pseudo-headers (§8.3.1) and writes the request line, and a host line from :authority.</summary>
    private bool WriteRequestLine()
    {
        if (_method.Start < 0)
        {
            Error = Http2HeadError.MissingPseudoHeader;
            return false;
        }

        ReadOnlySpan<byte> method = _method.Of(_pseudo);
        _info.Method = HttpParser.ClassifyMethod(method);
        if (method.IsEmpty || (_info.Method == HttpMethod.Custom && method.ContainsAnyExcept(HttpParser.s_tokenChars)))
        {
            Error = Http2HeadError.InvalidMethod;
            return false;
        }

        ReadOnlySpan<byte> authority = _authority.Start < 0 ? default : _authority.Of(_pseudo);
        if (authority.Contains((byte)'@') || authority.ContainsAnyExceptInRange((byte)0x21, (byte)0x7E))
        {
            Error = Http2HeadError.InvalidAuthority;
            return false;
        }

        ReadOnlySpan<byte> target;
        if (_info.Method == HttpMethod.Connect)
        {
            // §8.5: CONNECT names only the authority it would reach, as HTTP/1.1's authority-form target does.
            if (_scheme.Start >= 0 || _path.Start >= 0 || _authority.Start < 0)
            {
                Error = Http2HeadError.MissingPseudoHeader;
                return false;
            }

            target = authority;
        }
        else
        {
            if (_scheme.Start < 0 || _path.Start < 0)
            {
                Error = Http2HeadError.MissingPseudoHeader;
                return false;
            }

            ReadOnlySpan<byte> scheme = _scheme.Of(_pseudo);
            if (scheme.IsEmpty || !char.IsAsciiLetter((char)scheme[0]) || scheme.ContainsAnyExcept(s_schemeChars))
            {
                Error = Http2HeadError.InvalidScheme;
                return false;
            }

            target = _path.Of(_pseudo);
            if (!PathIsValid(target, _info.Method))
            {
                Error = Http2HeadError.InvalidPath;
                return false;
            }
        }

        Append(method);
        Append(" "u8);
        _info.MethodLength = method.Length;
        _info.TargetStart = _length;
        _info.TargetLength = target.Length;
        _info.PathStart = _length;
        if (_info.Method == HttpMethod.Connect)
        {
            _info.PathLength = 0;
        }
        else
        {
            int query = target.IndexOf((byte)'?');
            _info.PathLength = query < 0 ? target.Length : query;
            if (query >= 0)
            {
                _info.QueryStart = _length + query + 1;
                _info.QueryLength = target.Length - query - 1;
            }
        }

        Append(target);
        Append(" HTTP/2\r\n"u8);
        if (_authority.Start >= 0)
        {
            AppendField("host"u8, authority);
        }

        return Error == Http2HeadError.None;
    }

    private static bool PathIsValid(ReadOnlySpan<byte> path, HttpMethod method)
    {
        if (path.IsEmpty)
        {
            return false;
        }

        if (path[0] != (byte)'/')
        {
            // §8.3.1: "*" is OPTIONS' asterisk form; any other path is absolute.
            return path.Length == 1 && path[0] == (byte)'*' && method == HttpMethod.Options;
        }

        // As an HTTP/1.1 target: visible ASCII, no fragment (RFC 9110 §7.1).
        return !path.ContainsAnyExceptInRange((byte)0x21, (byte)0x7E) && !path.Contains((byte)'#');
    }

    // §8.2.1: no NUL, CR or LF, and no space or tab at either end.
    private static bool ValueIsValid(ReadOnlySpan<byte> value) =>
        value.IndexOfAny((byte)0, (byte)'\r', (byte)'\n') < 0
        && (value.IsEmpty || (value[0] is not ((byte)' ' or (byte)'\t') && value[^1] is not ((byte)' ' or (byte)'\t')));

    private void AppendField(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        if (++_info.HeaderCount > _maxFieldCount)
        {
            Error = Http2HeadError.TooManyFields;
            return;
        }

        int length = name.Length + value.Length + 4;
        Span<byte> line = Reserve(length);
        name.CopyTo(line);
        line[name.Length] = (byte)':';
        line[name.Length + 1] = (byte)' ';
        value.CopyTo(line.Slice(name.Length + 2));
        line[length - 2] = (byte)'\r';
        line[length - 1] = (byte)'\n';
    }

    private void Append(ReadOnlySpan<byte> bytes) => bytes.CopyTo(Reserve(bytes.Length));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Span<byte> Reserve(int length)
    {
        if (_head.Length - _length < length)
        {
            Array.Resize(ref _head, Math.Max(_length + length, 2 * _head.Length));
        }

        Span<byte> reserved = _head.AsSpan(_length, length);
        _length += length;
        return reserved;
    }

    private readonly record struct Part(int Start, int Length)
    {
        public static Part Absent => new(-1, 0);

        public ReadOnlySpan<byte> Of(byte[] bytes) => bytes.AsSpan(Start, Length);
    }

    /// <summary>The builder as the decoder's sink.</summary>
    public readonly struct FieldSink(Http2RequestHeadBuilder builder) : IHpackFieldSink
    {
        public void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed) =>
            builder.OnField(staticNameIndex, name, value, neverIndexed);
    }
}
