# Sourced by the scripts that need a tool from Debian's packages (wrk, perf, python3-matplotlib): one way to install it.

# install_package PACKAGE [LABEL]: apt-get install PACKAGE (root), refreshing the package lists only when the first
# try fails, so a machine whose lists are current installs without a network round trip. Returns apt-get's status.
install_package() {
    local package="$1" label="${2:-${0##*/}}"
    printf '%s: installing %s from the Debian packages\n' "$label" "$package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "$package" > /dev/null 2>&1 \
        || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$package" > /dev/null; }
}

# require_command COMMAND PACKAGE [LABEL]: installs PACKAGE when COMMAND is missing; exits 2 when that is impossible.
require_command() {
    local command="$1" package="$2" label="${3:-${0##*/}}"
    command -v "$command" > /dev/null && return 0
    [[ $(id -u) -eq 0 ]] || { printf '%s: %s is not installed; as root this script installs it (apt-get install %s)\n' \
        "$label" "$command" "$package" >&2; exit 2; }
    install_package "$package" "$label" \
        || { printf '%s: apt-get install %s failed\n' "$label" "$package" >&2; exit 2; }
}

# require_library SONAME PACKAGE [LABEL]: installs PACKAGE when the dynamic loader cannot find SONAME; exits 2 when that
# is impossible.
require_library() {
    local soname="$1" package="$2" label="${3:-${0##*/}}"
    ldconfig -p | grep -F "$soname" > /dev/null && return 0
    [[ $(id -u) -eq 0 ]] || { printf '%s: %s is not installed; as root this script installs it (apt-get install %s)\n' \
        "$label" "$soname" "$package" >&2; exit 2; }
    install_package "$package" "$label" \
        || { printf '%s: apt-get install %s failed\n' "$label" "$package" >&2; exit 2; }
}

# The Accept header TFB's load generator sends for a route: plaintext's prefers text/plain, every other test's JSON.
tfb_accept() {
    case "$1" in
        /plaintext*) echo 'text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' ;;
        *) echo 'application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' ;;
    esac
}
