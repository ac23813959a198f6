#!/bin/sh
# Prints the jmods folder of Debian 11's OpenJDK 17 (openjdk-17-jdk-headless from bullseye and
# bullseye-security), fetching it first when the cache lacks the newest version. Its java, libjvm.so and
# libjli.so are built against glibc 2.31, so a runtime jlinked from these jmods starts on Debian 11, Ubuntu
# 20.04, RHEL 8 and the mining OSes built on them, where one cut from Debian 12's JDK (glibc 2.34 symbols)
# does not. apt-get fetches and checks the package against Debian's archive keys
# (/usr/share/keyrings/debian-archive-bullseye-*.gpg, package debian-archive-keyring), with its own lists
# and cache in CACHE, so the build machine's apt set-up is neither read nor changed.
#   usage: debian11-jdk.sh [CACHE [ARCH]]   (default: ${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian11-jdk amd64)
# ARCH is Debian's name for the JDK's architecture, amd64 or arm64: the release's aarch64 archive is jlinked
# from the arm64 package's jmods (jlink links a foreign platform's modules when their version is its own).
# Beside the jmods: VERSION, the package's version (for the release's SBOM). OpenJDK's licence texts travel
# inside the jmods (legal/), and jlink writes them into every runtime it links (runtime/legal/MODULE/).
set -eu
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian11-jdk}
arch=${2:-amd64}
case $arch in
    amd64 | arm64) ;;
    *) echo "debian11-jdk: architecture '$arch' is not amd64 or arm64" >&2; exit 1 ;;
esac
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
# amd64 keeps the folders it always had, so an existing cache stays valid.
suffix=
if [ "$arch" != amd64 ]; then
    suffix=-$arch
fi
apt="$cache/apt$suffix"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$apt/preferences.d"
cat >"$apt/sources.list" <<LIST
deb [signed-by=$keys/debian-archive-bullseye-stable.gpg] http://deb.debian.org/debian bullseye main
deb [signed-by=$keys/debian-archive-bullseye-security-automatic.gpg] http://deb.debian.org/debian-security bullseye-security main
LIST
set -- -o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o Dir::State::status=/dev/null \
    -o "Dir::Cache=$apt" -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o "Dir::Etc::Parts=$apt/parts" -o "Dir::Etc::Preferences=$apt/preferences" \
    -o "Dir::Etc::PreferencesParts=$apt/preferences.d" -o APT::Architecture=$arch -o APT::Architectures=$arch -o Debug::NoLocking=1 \
    -o APT::Sandbox::User=root -q
# The lists are refreshed at most once a day; offline, the last fetched JDK is used.
if [ -z "$(find "$apt/lists" -maxdepth 1 -name '*_Packages' -mtime -1 2>/dev/null)" ]; then
    apt-get "$@" update >"$cache/update$suffix.log" 2>&1 || echo "debian11-jdk: apt-get update failed" \
        "(see $cache/update$suffix.log); using the cached JDK if there is one" >&2
fi
version=$(apt-cache "$@" policy openjdk-17-jdk-headless 2>/dev/null | sed -n 's/^ *Candidate: //p')
jdk="$cache/jdk-$version$suffix"
if [ -n "$version" ] && [ "$version" != "(none)" ] && [ ! -f "$jdk/VERSION" ]; then
    rm -rf "$cache/fetch$suffix" && mkdir -p "$cache/fetch$suffix"
    # The candidate first, then the older versions the lists name, newest first: a mirror that lacks the
    # newest security update for one architecture (seen here for arm64) still gives a Debian 11 JDK.
    # A version the mirror answered 404 for is remembered (missing-VERSION), so later builds do not ask again.
    fetched=
    for v in $version $(apt-cache "$@" madison openjdk-17-jdk-headless 2>/dev/null | awk -F' [|] ' '{print $2}' \
            | grep -vxF "$version" | sort -rV); do
        if [ -f "$cache/jdk-$v$suffix/VERSION" ]; then
            fetched=have
        elif [ ! -f "$cache/missing-$v$suffix" ]; then
            if (cd "$cache/fetch$suffix" && apt-get "$@" download "openjdk-17-jdk-headless:$arch=$v") \
                    >>"$cache/download$suffix.log" 2>&1; then
                fetched=new
            elif grep -q "404 *Not Found" "$cache/download$suffix.log"; then
                touch "$cache/missing-$v$suffix"
            fi
        fi
        if [ -n "$fetched" ]; then
            version=$v
            jdk="$cache/jdk-$version$suffix"
            break
        fi
    done
    if [ -z "$fetched" ]; then
        echo "debian11-jdk: apt-get download failed (see $cache/download$suffix.log)" >&2
        exit 1
    fi
fi
if [ "${fetched:-}" = new ]; then
    rm -rf "$jdk.partial" && dpkg-deb -x "$cache"/fetch$suffix/openjdk-17-jdk-headless_*.deb "$jdk.partial"
    # Only the jmods are kept: they hold the native parts (bin/java, lib/server/libjvm.so) too.
    rm -rf "$jdk" && mkdir -p "$jdk" && mv "$jdk.partial/usr/lib/jvm/java-17-openjdk-$arch/jmods" "$jdk/jmods"
    echo "$version" >"$jdk/VERSION"
    rm -rf "$jdk.partial" "$cache/fetch$suffix"
fi
if [ ! -f "$jdk/VERSION" ]; then
    # Offline with no list: the newest JDK fetched before.
    jdk=$(ls -d "$cache"/jdk-*/VERSION 2>/dev/null | grep -e "-arm64/VERSION" -v | sort -V | tail -n 1)
    if [ -n "$suffix" ]; then
        jdk=$(ls -d "$cache"/jdk-*"$suffix"/VERSION 2>/dev/null | sort -V | tail -n 1)
    fi
    jdk=${jdk%/VERSION}
fi
if [ -z "$jdk" ] || [ ! -d "$jdk/jmods" ]; then
    echo "debian11-jdk: no Debian 11 OpenJDK 17 in $cache and none could be fetched" >&2
    exit 1
fi
echo "$jdk/jmods"
