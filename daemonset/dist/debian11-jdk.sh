#!/bin/sh
# Prints the jmods folder of Debian 11's OpenJDK 17 (openjdk-17-jdk-headless from bullseye and
# bullseye-security), fetching it first when the cache lacks the newest version. Its java, libjvm.so and
# libjli.so are built against glibc 2.31, so a runtime jlinked from these jmods starts on Debian 11, Ubuntu
# 20.04, RHEL 8 and the mining OSes built on them, where one cut from Debian 12's JDK (glibc 2.34 symbols)
# does not. apt-get fetches and checks the package against Debian's archive keys
# (/usr/share/keyrings/debian-archive-bullseye-*.gpg, package debian-archive-keyring), with its own lists
# and cache in CACHE, so the build machine's apt set-up is neither read nor changed.
#   usage: debian11-jdk.sh [CACHE]   (default: ${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian11-jdk)
set -eu
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian11-jdk}
keys=/usr/share/keyrings
for key in debian-archive-bullseye-stable.gpg debian-archive-bullseye-security-automatic.gpg; do
    if [ ! -f "$keys/$key" ]; then
        echo "debian11-jdk: $keys/$key is missing: install debian-archive-keyring (Debian, Ubuntu), or set" \
            "GPU_DETECT_RUNTIME_JMODS to the jmods folder of a JDK 17 built for glibc 2.31 or older" >&2
        exit 1
    fi
done
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || {
    echo "debian11-jdk: needs apt-get and dpkg-deb (Debian, Ubuntu), or set GPU_DETECT_RUNTIME_JMODS to the" \
        "jmods folder of a JDK 17 built for glibc 2.31 or older" >&2
    exit 1
}
apt="$cache/apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$apt/preferences.d"
cat >"$apt/sources.list" <<LIST
deb [signed-by=$keys/debian-archive-bullseye-stable.gpg] http://deb.debian.org/debian bullseye main
deb [signed-by=$keys/debian-archive-bullseye-security-automatic.gpg] http://deb.debian.org/debian-security bullseye-security main
LIST
set -- -o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o Dir::State::status=/dev/null \
    -o "Dir::Cache=$apt" -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o "Dir::Etc::Parts=$apt/parts" -o "Dir::Etc::Preferences=$apt/preferences" \
    -o "Dir::Etc::PreferencesParts=$apt/preferences.d" -o APT::Architecture=amd64 -o Debug::NoLocking=1 \
    -o APT::Sandbox::User=root -q
# The lists are refreshed at most once a day; offline, the last fetched JDK is used.
if [ -z "$(find "$apt/lists" -maxdepth 1 -name '*_Packages' -mtime -1 2>/dev/null)" ]; then
    apt-get "$@" update >"$cache/update.log" 2>&1 || echo "debian11-jdk: apt-get update failed" \
        "(see $cache/update.log); using the cached JDK if there is one" >&2
fi
version=$(apt-cache "$@" policy openjdk-17-jdk-headless 2>/dev/null | sed -n 's/^ *Candidate: //p')
jdk="$cache/jdk-$version"
if [ -n "$version" ] && [ "$version" != "(none)" ] && [ ! -d "$jdk/jmods" ]; then
    rm -rf "$cache/fetch" && mkdir -p "$cache/fetch"
    (cd "$cache/fetch" && apt-get "$@" download "openjdk-17-jdk-headless=$version") >"$cache/download.log" 2>&1 \
        || { echo "debian11-jdk: apt-get download failed (see $cache/download.log)" >&2; exit 1; }
    rm -rf "$jdk.partial" && dpkg-deb -x "$cache"/fetch/openjdk-17-jdk-headless_*.deb "$jdk.partial"
    # Only the jmods are kept: they hold the native parts (bin/java, lib/server/libjvm.so) too.
    mkdir -p "$jdk" && mv "$jdk.partial/usr/lib/jvm/java-17-openjdk-amd64/jmods" "$jdk/jmods"
    rm -rf "$jdk.partial" "$cache/fetch"
fi
if [ ! -d "$jdk/jmods" ]; then
    # Offline with no list: the newest JDK fetched before.
    jdk=$(ls -d "$cache"/jdk-*/jmods 2>/dev/null | sort -V | tail -n 1)
    jdk=${jdk%/jmods}
fi
if [ -z "$jdk" ] || [ ! -d "$jdk/jmods" ]; then
    echo "debian11-jdk: no Debian 11 OpenJDK 17 in $cache and none could be fetched" >&2
    exit 1
fi
echo "$jdk/jmods"
