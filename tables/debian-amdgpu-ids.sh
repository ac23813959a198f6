#!/bin/sh
# Prints the path of libdrm's amdgpu.ids (AMD marketing names by device id and revision, MIT) from Debian's
# libdrm-common in the newest suite deb.debian.org serves (unstable, then testing, then trixie: whichever has
# the highest version), fetching it first when the cache lacks that version. As daemonset/dist/debian11-jdk.sh
# fetches its JDK: apt-get checks the package against Debian's archive keys (debian-archive-keyring), with its
# own lists and cache in CACHE, so the build machine's apt set-up is neither read nor changed. The lists are
# refreshed at most once a day, so a build costs one apt-cache call when nothing is new; offline, the newest
# copy fetched before is printed. Exits 1 with one line on stderr when there is no copy at all.
# With --into DIR (the build, probes/pom.xml), it writes DIR/amdgpu.ids instead, its first line naming the
# package ("# gpu-detect: Debian libdrm-common 2.4.134-3"), and where there is no copy it writes none, says so
# in one line and still exits 0: a build without apt or network succeeds, and its gpu-detect says it has no
# amdgpu.ids (and uses the host's).
#   usage: debian-amdgpu-ids.sh [--into DIR] [CACHE]   (default CACHE: ${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/amdgpu-ids)
set -eu
if [ "${1:-}" = "--into" ]; then
    into=$2
    shift 2
    # Whatever goes wrong below (no apt, no network, an unwritable cache) this mode does not fail the build.
    if found=$(sh "$0" "$@"); then
        version=${found%/amdgpu.ids}
        version=${version##*/libdrm-common-}
        rm -f "$into/amdgpu.ids"
        mkdir -p "$into" && { echo "# gpu-detect: Debian libdrm-common $version"; cat "$found"; } >"$into/amdgpu.ids.partial" \
            && mv "$into/amdgpu.ids.partial" "$into/amdgpu.ids" \
            || echo "debian-amdgpu-ids: cannot write $into/amdgpu.ids; gpu-detect is built without amdgpu.ids" >&2
    else
        rm -f "$into/amdgpu.ids"
        echo "debian-amdgpu-ids: gpu-detect is built without amdgpu.ids (it uses the host's, and says so)" >&2
    fi
    exit 0
fi
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/amdgpu-ids}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
newest_cached() {
    ls -d "$cache"/libdrm-common-*/amdgpu.ids 2>/dev/null | sed 's|.*/libdrm-common-||; s|/amdgpu.ids$||' \
        | sort -V | tail -n 1
}
fetched=
# Within a day of the last look at the lists, the version found then: the lists are not read again (apt-cache
# over them takes seconds, and this runs at every build).
if [ -n "$(find "$cache" -maxdepth 1 -name current -mtime -1 2>/dev/null)" ]; then
    fetched=$(cat "$cache/current")
    [ -f "$cache/libdrm-common-$fetched/amdgpu.ids" ] || fetched=
fi
if [ -z "$fetched" ] && [ -f "$keyring" ] && command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; then
    apt="$cache/apt"
    mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$apt/preferences.d" 2>/dev/null \
        || { echo "debian-amdgpu-ids: cannot create $apt" >&2; exit 1; }
    cat >"$apt/sources.list" <<LIST
deb [signed-by=$keyring] http://deb.debian.org/debian unstable main
deb [signed-by=$keyring] http://deb.debian.org/debian testing main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
LIST
    set -- -o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o Dir::State::status=/dev/null \
        -o "Dir::Cache=$apt" -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o "Dir::Etc::Parts=$apt/parts" -o "Dir::Etc::Preferences=$apt/preferences" \
        -o "Dir::Etc::PreferencesParts=$apt/preferences.d" -o APT::Architecture=amd64 -o Debug::NoLocking=1 \
        -o Acquire::Languages=none -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false \
        -o APT::Sandbox::User=root -o Acquire::http::Timeout=20 -q
    if [ -z "$(find "$apt/lists" -maxdepth 1 -name '*_Packages' -mtime -1 2>/dev/null)" ]; then
        apt-get "$@" update >"$cache/update.log" 2>&1 || echo "debian-amdgpu-ids: apt-get update failed" \
            "(see $cache/update.log); using the cached amdgpu.ids if there is one" >&2
    fi
    version=$(apt-cache "$@" policy libdrm-common 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -n "$version" ] && [ "$version" != "(none)" ]; then
        dir="$cache/libdrm-common-$version"
        if [ ! -f "$dir/amdgpu.ids" ]; then
            rm -rf "$cache/fetch" && mkdir -p "$cache/fetch"
            if (cd "$cache/fetch" && apt-get "$@" download "libdrm-common=$version") >"$cache/download.log" 2>&1; then
                rm -rf "$cache/fetch/x" && dpkg-deb -x "$cache"/fetch/libdrm-common_*.deb "$cache/fetch/x"
                mkdir -p "$dir" && cp "$cache/fetch/x/usr/share/libdrm/amdgpu.ids" "$dir/amdgpu.ids.partial"
                mv "$dir/amdgpu.ids.partial" "$dir/amdgpu.ids"
            else
                echo "debian-amdgpu-ids: apt-get download failed (see $cache/download.log)" >&2
            fi
            rm -rf "$cache/fetch"
        fi
        if [ -f "$dir/amdgpu.ids" ]; then
            fetched=$version
            echo "$version" >"$cache/current"
        fi
    fi
fi
[ -n "$fetched" ] || fetched=$(newest_cached)
if [ -z "$fetched" ]; then
    echo "debian-amdgpu-ids: no Debian libdrm-common in $cache and none could be fetched (needs apt-get," \
        "dpkg-deb, debian-archive-keyring and deb.debian.org)" >&2
    exit 1
fi
echo "$cache/libdrm-common-$fetched/amdgpu.ids"
