#!/usr/bin/env bash
# Local TFB-style load runs: scenarios/run.sh --help for the options, scenarios/README.md for the method.
# This wrapper prepares the machine (wrk, matplotlib, file descriptors); the scenarios/loadrun package does the runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../scripts/lib/packages.sh"

die() { printf 'run.sh: error: %s\n' "$*" >&2; exit 2; }

command -v python3 > /dev/null || die "python3 is required (the runner is Python 3, with matplotlib for its chart)"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "Python 3.11 or later is required (Debian 12's python3 is 3.11)"

case " $* " in
    *" -h "* | *" --help "*) exec python3 "$here/loadrun" --help ;;
esac

# The chart is drawn with matplotlib, from Debian's packages, which the system's interpreter sees; a python3 earlier on
# the PATH (pyenv, a virtual environment) may not. Use the first interpreter that has it; install it as root if none.
python=python3
has_matplotlib() { "$1" -c 'import sys, matplotlib; sys.exit(sys.version_info < (3, 11))' 2> /dev/null; }
if ! has_matplotlib python3; then
    if ! has_matplotlib /usr/bin/python3 && [[ $(id -u) -eq 0 ]]; then
        install_package python3-matplotlib run.sh || true
    fi
    if has_matplotlib /usr/bin/python3; then
        python=/usr/bin/python3
    else
        printf 'run.sh: matplotlib is not available (apt-get install python3-matplotlib): tables only, no chart\n' >&2
    fi
fi

# TFB's load generator is wrk 4.x; Debian packages 4.1. HttpArena's h2 profiles run h2load, from nghttp2-client.
require_command wrk wrk run.sh
case " $* " in
    *" h2"* | *",h2"* | *"-h2"*) require_command h2load nghttp2-client run.sh ;;
esac

# Every connection is a descriptor on both ends, and plaintext goes up to 16384 connections: the usual 1024 is far
# too low. TFB gives its containers nofile=200000; take that, or at least the hard limit. The server this runner
# starts inherits the limit.
ulimit -n 200000 2> /dev/null || ulimit -n "$(ulimit -Hn)"

exec "$python" "$here/loadrun" "$@"
