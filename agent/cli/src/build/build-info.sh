#!/bin/sh
# Writes the build's identity into the command's jar, for `gpu-detect --version` (VersionProvider): a resource
# read at start, so that the start-up path runs no git and opens no other file.
#   build-info.sh CLASSES_DIR VERSION
# -> CLASSES_DIR/io/gpudetect/cli/build-info.properties: version, commit (git's, with "-dirty" when the work
#    tree had changes, "unknown" outside a checkout) and date. The date is the commit's (SOURCE_DATE_EPOCH when
#    set, as reproducible builds define it), not the clock's: two builds of one commit write the same file.
set -eu
classes=$1
version=$2
here=$(cd "$(dirname "$0")" && pwd)
commit=unknown
epoch=${SOURCE_DATE_EPOCH:-}
if command -v git >/dev/null 2>&1 && git -C "$here" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    commit=$(git -C "$here" rev-parse HEAD)
    # Tracked files only: build outputs and ignored files are not the source.
    if [ -n "$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
    fi
    epoch=${epoch:-$(git -C "$here" log -1 --format=%ct HEAD)}
fi
date=unknown
if [ -n "$epoch" ]; then
    date=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
fi
out="$classes/io/gpudetect/cli"
mkdir -p "$out"
printf 'version=%s\ncommit=%s\ndate=%s\n' "$version" "$commit" "$date" >"$out/build-info.properties"
