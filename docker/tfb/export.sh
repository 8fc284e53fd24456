#!/usr/bin/env bash
# Copies this submission into a FrameworkBenchmarks checkout as frameworks/CSharp/<name>/ (default name:
# platformbenchmarks, the "framework" of benchmark_config.json): the files of docker/tfb/ plus the build context
# the dockerfiles COPY from, read from their COPY lines so the two cannot drift apart.
#
#   docker/tfb/export.sh <FrameworkBenchmarks checkout> [name]
set -euo pipefail

readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly HERE="$ROOT/docker/tfb"

die() { printf 'export.sh: error: %s\n' "$*" >&2; exit 1; }

[[ $# -ge 1 ]] || die "usage: docker/tfb/export.sh <FrameworkBenchmarks checkout> [name]"
tfb="$(cd "$1" && pwd)" || die "$1 is not a directory"
name="${2:-platformbenchmarks}"
[[ -x $tfb/tfb && -d $tfb/frameworks/CSharp ]] || die "$tfb does not look like a FrameworkBenchmarks checkout (no ./tfb, no frameworks/CSharp)"
target="$tfb/frameworks/CSharp/$name"

rm -rf "$target"
mkdir -p "$target"
cp "$HERE"/benchmark_config.json "$HERE"/config.toml "$HERE"/README.md "$HERE"/*.dockerfile "$target/"
cp "$ROOT/.dockerignore" "$target/"

# Every `COPY <sources...> <dest>` of the build stages, except COPY --from: the sources are paths in the context.
sources="$(awk '$1 == "COPY" && $2 !~ /^--from/ { for (i = 2; i < NF; i++) print $i }' "$HERE"/*.dockerfile | sort -u)"
while IFS= read -r source; do
    source="${source%/}"
    # What git tracks or would track: bin/ and obj/ stay behind.
    git -C "$ROOT" ls-files --cached --others --exclude-standard -- "$source" | while IFS= read -r file; do
        [[ -e $ROOT/$file ]] || continue
        mkdir -p "$target/$(dirname "$file")"
        cp "$ROOT/$file" "$target/$file"
    done
done <<< "$sources"

if [[ $name != platformbenchmarks ]]; then
    # TFB finds a test's dockerfile by the framework name: rename them and the framework together.
    for file in "$target"/platformbenchmarks*.dockerfile; do
        mv "$file" "$target/${name}${file##*/platformbenchmarks}"
    done
    sed -i -e "s/\"framework\": \"platformbenchmarks\"/\"framework\": \"$name\"/" \
        -e "s/\"versus\": \"platformbenchmarks\"/\"versus\": \"$name\"/" "$target/benchmark_config.json"
    sed -i -e "s/^name = \"platformbenchmarks\"/name = \"$name\"/" \
        -e "s/^versus = \"platformbenchmarks\"/versus = \"$name\"/" "$target/config.toml"
fi

printf 'export.sh: %s is ready; from %s run:\n  ./tfb --mode verify --test %s %s-aot\n' "$target" "$tfb" "$name" "$name" >&2
