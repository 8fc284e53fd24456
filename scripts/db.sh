#!/usr/bin/env bash
# A local PostgreSQL configured like TFB's tfb-database (docs/tfb-rules.md §8), one command away.
#
#   scripts/db.sh [start]           install if missing, create the cluster if missing, start it, load data if missing
#   scripts/db.sh stop              stop the cluster (fast shutdown: open connections are cut)
#   scripts/db.sh reset             reload world (fresh random numbers), fortune and their quoted copies to their pristine state,
#                                   and HttpArena's items
#   scripts/db.sh status            show the cluster and its data; exit 0 when up and loaded, 3 otherwise
#   scripts/db.sh connection-string print the Npgsql connection string for this cluster
#   scripts/db.sh psql [args]       open psql as benchmarkdbuser on hello_world
#
# It runs a dedicated Debian cluster ("platformbenchmarks", port 5433) next to Debian's default "main" cluster,
# which the postgresql package creates on 5432 and which this script leaves alone. start, stop and reset must run
# as root (the server itself runs as the postgres user); status, connection-string and psql need no privileges.
# Override with PB_DB_CLUSTER / PB_DB_PORT (the port only matters when the cluster is created).
set -euo pipefail

readonly CLUSTER="${PB_DB_CLUSTER:-platformbenchmarks}"
readonly DEFAULT_PORT="${PB_DB_PORT:-5433}"
readonly DB_NAME=hello_world
readonly DB_USER=benchmarkdbuser
readonly DB_PASSWORD=benchmarkdbpass
readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly DATA_SQL="$SCRIPT_DIR/sql/hello_world.sql"
readonly ITEMS_SQL="$SCRIPT_DIR/sql/items.sql"
readonly ITEM_COUNT=100000
readonly SOCKET_DIR=/var/run/postgresql

# Messages go to stderr so that `connection-string` prints nothing but the string on stdout.
say() { printf 'db.sh: %s\n' "$*" >&2; }
die() { printf 'db.sh: error: %s\n' "$*" >&2; exit 1; }

require_root() {
    [[ $(id -u) -eq 0 ]] || die "'$1' must run as root (it installs packages and controls the server as the postgres user)"
}

# Prints "<version> <port> <status>" of our cluster, or nothing when it does not exist.
cluster_line() {
    command -v pg_lsclusters > /dev/null || return 0
    pg_lsclusters --no-header 2> /dev/null | awk -v c="$CLUSTER" '$2 == c { print $1, $3, $4; exit }'
}

# Highest installed server major version, or nothing.
installed_version() {
    local bin
    # An if, not `[[ ]] &&`: with no server installed the loop must still succeed (set -e and pipefail are on).
    for bin in /usr/lib/postgresql/*/bin/postgres; do
        if [[ -x $bin ]]; then
            basename "$(dirname "$(dirname "$bin")")"
        fi
    done | sort -n | tail -n 1
}

cluster_port() {
    local line
    line="$(cluster_line)"
    if [[ -n $line ]]; then
        set -- $line
        echo "$2"
    else
        echo "$DEFAULT_PORT"
    fi
}

connection_string() {
    # 127.0.0.1 rather than localhost: no resolver call and no attempt on ::1 first.
    echo "Host=127.0.0.1;Port=$(cluster_port);Database=$DB_NAME;Username=$DB_USER;Password=$DB_PASSWORD;SSL Mode=Disable"
}

install_if_missing() {
    local version
    version="$(installed_version)"
    if [[ -n $version ]] && command -v pg_createcluster > /dev/null \
        && [[ -f /usr/lib/postgresql/$version/lib/pg_stat_statements.so ]]; then
        return 0
    fi
    say "installing PostgreSQL (postgresql + postgresql-contrib) with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || die "apt-get update failed"
    apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib > /dev/null \
        || die "apt-get install postgresql postgresql-contrib failed"
    version="$(installed_version)"
    [[ -n $version ]] || die "PostgreSQL was installed but no server binary was found under /usr/lib/postgresql"
    say "installed PostgreSQL $version"
}

# Runs psql as the postgres superuser over the Unix socket (peer authentication).
psql_admin() {
    local port="$1"
    shift
    (cd / && runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$port" "$@")
}

# The server configuration: TFB's settings where they matter to us, sized for a small shared machine.
write_server_config() {
    local version="$1" port="$2" conf_dir="/etc/postgresql/$1/$CLUSTER"
    local settings hba changed=0
    settings="# Written by scripts/db.sh; rewritten whenever it differs. TFB's tfb-database settings (docs/tfb-rules.md §8),
# except the sizes: this box is shared by the server, the load generator and PostgreSQL.
listen_addresses = 'localhost'
port = $port
# 512 concurrent benchmark clients (plus the test suite's pools) with headroom.
max_connections = 1000
ssl = off
shared_buffers = 256MB
work_mem = 4MB
synchronous_commit = off
wal_level = minimal
max_wal_senders = 0
# The query-count checks of docs/tfb-rules.md §6 read pg_stat_statements.
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.max = 20000
"
    hba="# Written by scripts/db.sh. Local superuser by peer; every TCP client by password, loopback only.
local   all             postgres                                peer
local   all             all                                     peer
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
"
    if [[ "$(cat "$conf_dir/conf.d/50-platformbenchmarks.conf" 2> /dev/null)" != "${settings%$'\n'}" ]]; then
        printf '%s' "$settings" > "$conf_dir/conf.d/50-platformbenchmarks.conf"
        changed=1
    fi
    if [[ "$(cat "$conf_dir/pg_hba.conf" 2> /dev/null)" != "${hba%$'\n'}" ]]; then
        printf '%s' "$hba" > "$conf_dir/pg_hba.conf"
        changed=1
    fi
    chown postgres:postgres "$conf_dir/conf.d/50-platformbenchmarks.conf" "$conf_dir/pg_hba.conf"
    return $((1 - changed)) # 0 (true) when something changed
}

create_cluster() {
    local version="$1" port="$2"
    if pg_lsclusters --no-header 2> /dev/null | awk -v p="$port" '$3 == p { found = 1 } END { exit !found }'; then
        die "port $port is already used by another cluster (see pg_lsclusters); set PB_DB_PORT to a free port"
    fi
    say "creating cluster $version/$CLUSTER on port $port"
    # manual: the init scripts leave it alone at boot; `db.sh start` starts it on demand.
    pg_createcluster "$version" "$CLUSTER" --port="$port" --start-conf=manual --encoding=UTF8 --locale=C.UTF-8 \
        -- --auth-local=peer --auth-host=scram-sha-256 > /dev/null \
        || die "pg_createcluster $version $CLUSTER failed"
}

wait_ready() {
    local port="$1" i
    pg_isready -q -h 127.0.0.1 -p "$port" && return 0
    say "waiting for the server on port $port to accept connections (up to 30 s)"
    for ((i = 0; i < 300; i++)); do
        pg_isready -q -h 127.0.0.1 -p "$port" && return 0
        sleep 0.1
    done
    die "the server on port $port did not accept connections within 30 s (see /var/log/postgresql/)"
}

start_server() {
    local version="$1" port="$2"
    # /var/run is a tmpfs on most machines: after a reboot the socket directory is gone.
    install -d -o postgres -g postgres -m 2775 "$SOCKET_DIR"
    if ! pg_ctlcluster "$version" "$CLUSTER" start; then
        tail -n 20 "/var/log/postgresql/postgresql-$version-$CLUSTER.log" >&2 2> /dev/null || true
        die "could not start cluster $version/$CLUSTER"
    fi
    say "started cluster $version/$CLUSTER on port $port"
}

# True when benchmarkdbuser can log in over TCP with its password and the data is loaded: the quick path of `start`.
data_ready() {
    local port="$1" answer
    answer="$(PGPASSWORD="$DB_PASSWORD" PGCONNECT_TIMEOUT=5 psql -X -q -At -h 127.0.0.1 -p "$port" -U "$DB_USER" -d "$DB_NAME" -c \
        "SELECT (SELECT count(*) FROM world) = 10000
            AND (SELECT count(*) FROM fortune) = 12
            AND (SELECT count(*) FROM \"World\") = 10000
            AND (SELECT count(*) FROM \"Fortune\") = 12
            AND EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_stat_statements')" 2> /dev/null)" || return 1
    [[ $answer == t ]]
}

# True when HttpArena's items table is loaded (its async-db route reads it). Checked apart from the TFB tables, so that
# loading it on a machine provisioned before it existed leaves world and fortune alone.
items_ready() {
    local port="$1" answer
    answer="$(PGPASSWORD="$DB_PASSWORD" PGCONNECT_TIMEOUT=5 psql -X -q -At -h 127.0.0.1 -p "$port" -U "$DB_USER" -d "$DB_NAME" -c \
        "SELECT to_regclass('items') IS NOT NULL AND (SELECT count(*) FROM items) = $ITEM_COUNT" 2> /dev/null)" || return 1
    [[ $answer == t ]]
}

load_items() {
    local port="$1"
    say "generating HttpArena's items ($ITEM_COUNT rows)"
    psql_admin "$port" -d "$DB_NAME" < "$ITEMS_SQL" > /dev/null || die "loading $ITEMS_SQL failed"
}

provision() {
    local port="$1"
    say "creating role $DB_USER and database $DB_NAME if missing"
    # A superuser like in TFB's image (POSTGRES_USER owns the database): it reads and resets pg_stat_statements.
    psql_admin "$port" -d postgres <<SQL
DO \$\$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER') THEN
        CREATE ROLE $DB_USER;
    END IF;
END \$\$;
ALTER ROLE $DB_USER WITH LOGIN SUPERUSER PASSWORD '$DB_PASSWORD';
SELECT 'CREATE DATABASE $DB_NAME OWNER $DB_USER ENCODING ''UTF8'' LOCALE ''C.UTF-8'' TEMPLATE template0'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME')
\gexec
SQL
    psql_admin "$port" -d "$DB_NAME" -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' || die "cannot create pg_stat_statements"
}

load_data() {
    local port="$1"
    say "loading world and \"World\" (10000 rows each), fortune and \"Fortune\" (12 rows each)"
    psql_admin "$port" -d "$DB_NAME" < "$DATA_SQL" || die "loading $DATA_SQL failed"
}

cmd_start() {
    require_root start
    install_if_missing
    local line version port status
    line="$(cluster_line)"
    if [[ -z $line ]]; then
        create_cluster "$(installed_version)" "$DEFAULT_PORT"
        line="$(cluster_line)"
        [[ -n $line ]] || die "cluster $CLUSTER was created but pg_lsclusters does not list it"
    fi
    set -- $line
    version="$1" port="$2" status="$3"
    if write_server_config "$version" "$port" && [[ $status == online ]]; then
        say "configuration changed: restarting $version/$CLUSTER"
        pg_ctlcluster "$version" "$CLUSTER" restart -m fast || die "could not restart cluster $version/$CLUSTER"
    elif [[ $status != online ]]; then
        start_server "$version" "$port"
    fi
    wait_ready "$port"
    if ! data_ready "$port"; then
        provision "$port"
        load_data "$port"
        data_ready "$port" || die "the data is still not in place after loading it"
    fi
    if ! items_ready "$port"; then
        load_items "$port"
        items_ready "$port" || die "the items table is still not in place after loading it"
    fi
    say "ready: $(connection_string)"
}

cmd_stop() {
    require_root stop
    local line
    line="$(cluster_line)"
    if [[ -z $line ]]; then
        say "cluster $CLUSTER does not exist: nothing to stop"
        return 0
    fi
    set -- $line
    if [[ $3 == online ]]; then
        pg_ctlcluster "$1" "$CLUSTER" stop -m fast || die "could not stop cluster $1/$CLUSTER"
        say "stopped cluster $1/$CLUSTER"
    else
        say "cluster $1/$CLUSTER is already down"
    fi
}

cmd_reset() {
    require_root reset
    cmd_start
    local port
    port="$(cluster_port)"
    load_data "$port"
    load_items "$port"
    psql_admin "$port" -d "$DB_NAME" -c 'SELECT pg_stat_statements_reset()' > /dev/null
    say "world, fortune and items reloaded, pg_stat_statements reset"
}

cmd_status() {
    local line
    line="$(cluster_line)"
    if [[ -z $line ]]; then
        say "cluster $CLUSTER does not exist (run: scripts/db.sh start)"
        return 3
    fi
    set -- $line
    echo "cluster $1/$CLUSTER port $2: $3"
    if [[ $3 != online ]]; then
        return 3
    fi
    if data_ready "$2" && items_ready "$2"; then
        echo "hello_world: world, fortune and items loaded, pg_stat_statements present"
        echo "connection string: $(connection_string)"
    else
        echo "hello_world: not loaded or not reachable as $DB_USER (run: scripts/db.sh start)"
        return 3
    fi
}

cmd_psql() {
    PGPASSWORD="$DB_PASSWORD" exec psql -X -h 127.0.0.1 -p "$(cluster_port)" -U "$DB_USER" -d "$DB_NAME" "$@"
}

main() {
    local command="${1:-start}"
    [[ $# -gt 0 ]] && shift
    case "$command" in
        start) cmd_start ;;
        stop) cmd_stop ;;
        reset) cmd_reset ;;
        status) cmd_status ;;
        connection-string) connection_string ;;
        psql) cmd_psql "$@" ;;
        -h | --help | help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
        *) die "unknown command '$command' (start, stop, reset, status, connection-string, psql)" ;;
    esac
}

main "$@"
