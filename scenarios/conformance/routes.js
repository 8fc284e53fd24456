// The answers Http11Probe expects from the server it probes, as this repository's server gives them on the same
// paths (README, "Routes"): "/" answers OK, or echoes a POST's body; "/echo" lists the request's header fields;
// "/cookie" lists the request's cookies, one name=value pair a line.

function root(r) {
    r.return(200, r.method === 'POST' ? (r.requestText || '') : 'OK');
}

function echo(r) {
    var text = '';
    for (var name in r.headersIn) {
        text += name + ': ' + r.headersIn[name] + '\n';
    }

    r.return(200, text);
}

function cookie(r) {
    var text = '';
    var pairs = (r.headersIn['Cookie'] || '').split(';');
    for (var i = 0; i < pairs.length; i++) {
        var pair = pairs[i].replace(/^[ \t]+/, '');
        var equals = pair.indexOf('=');
        if (equals > 0) {
            text += pair.slice(0, equals) + '=' + pair.slice(equals + 1) + '\n';
        }
    }

    r.return(200, text);
}

export default { root, echo, cookie };
