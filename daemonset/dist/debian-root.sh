#!/bin/sh
# Fetches Debian packages of one release and architecture and unpacks them into one folder, as a root that
# stands in for an image's base or a foreign architecture's system libraries:
#   debian-root.sh SUITE ARCH ROOT PACKAGE...     (SUITE: bullseye or bookworm; ARCH: amd64 or arm64)
# ROOT gets each package's files (dpkg-deb -x; no maintainer scripts run) and ROOT.packages the list
# "PACKAGE VERSION ARCH" of what was unpacked (for the release's SBOM). As debian11-jdk.sh: apt-get with its own
# lists and cache under ${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian-root, checked against Debian's archive
# keys, the build machine's apt set-up neither read nor changed; the .debs stay cached, so a second build
# unpacks the same bytes offline.
set -eu
suite=${1:?usage: debian-root.sh SUITE ARCH ROOT PACKAGE...}
arch=${2:?usage: debian-root.sh SUITE ARCH ROOT PACKAGE...}
root=${3:?usage: debian-root.sh SUITE ARCH ROOT PACKAGE...}
shift 3
keys=/usr/share/keyrings
case $suite in
    bullseye) security=bullseye-security; security_key=debian-archive-bullseye-security-automatic.gpg
        key=debian-archive-bullseye-stable.gpg ;;
    bookworm) security=bookworm-security; security_key=debian-archive-bookworm-security-automatic.gpg
        key=debian-archive-bookworm-stable.gpg ;;
    *) echo "debian-root: suite '$suite' is not bullseye or bookworm" >&2; exit 1 ;;
esac
for k in "$key" "$security_key"; do
    if [ ! -f "$keys/$k" ]; then
        echo "debian-root: $keys/$k is missing: install debian-archive-keyring" >&2
        exit 1
    fi
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian-root/$suite-$arch
apt="$cache/apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$apt/preferences.d" "$cache/debs"
cat >"$apt/sources.list" <<LIST
deb [signed-by=$keys/$key] http://deb.debian.org/debian $suite main
deb [signed-by=$keys/$security_key] http://deb.debian.org/debian-security $security main
LIST
opts="-o Dir::State=$apt -o Dir::State::Lists=$apt/lists -o Dir::State::status=/dev/null -o Dir::Cache=$apt
 -o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::Etc::Parts=$apt/parts
 -o Dir::Etc::Preferences=$apt/preferences -o Dir::Etc::PreferencesParts=$apt/preferences.d
 -o APT::Architecture=$arch -o APT::Architectures=$arch -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
if [ -z "$(find "$apt/lists" -maxdepth 1 -name '*_Packages' -mtime -1 2>/dev/null)" ]; then
    # shellcheck disable=SC2086
    apt-get $opts update >"$cache/update.log" 2>&1 || echo "debian-root: apt-get update failed" \
        "(see $cache/update.log); using the cached packages" >&2
fi
rm -rf "$root" && mkdir -p "$root"
: >"$root.packages"
for package in "$@"; do
    # The candidate, else (a mirror lacking the newest update for this architecture) the older versions listed.
    # shellcheck disable=SC2086
    versions=$(apt-cache $opts madison "$package" 2>/dev/null | awk -F' [|] ' '{print $2}' | sort -rV -u)
    deb=
    for v in $versions; do
        # apt-get download's file name: the epoch's colon written %3a.
        file="$cache/debs/${package}_$(echo "$v" | sed 's/:/%3a/')_$arch.deb"
        if [ ! -f "$file" ] && [ ! -f "$cache/debs/missing-${package}_$v" ]; then
            # shellcheck disable=SC2086
            if ! (cd "$cache/debs" && apt-get $opts download "$package:$arch=$v") >"$cache/download.log" 2>&1 \
                    && grep -q "404 *Not Found" "$cache/download.log"; then
                touch "$cache/debs/missing-${package}_$v"
            fi
        fi
        if [ -f "$file" ]; then
            deb=$file
            echo "$package $v $arch" >>"$root.packages"
            break
        fi
    done
    if [ -z "$deb" ]; then
        # Offline with no lists: the newest cached .deb.
        deb=$(ls "$cache/debs/${package}_"*"_$arch.deb" 2>/dev/null | sort -V | tail -n 1)
        if [ -z "$deb" ]; then
            echo "debian-root: no $package for $suite $arch could be fetched (see $cache/download.log)" >&2
            exit 1
        fi
        echo "$package $(dpkg-deb -f "$deb" Version) $arch" >>"$root.packages"
    fi
    dpkg-deb -x "$deb" "$root"
done
